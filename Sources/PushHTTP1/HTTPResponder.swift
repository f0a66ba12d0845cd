internal import CEvent
public import PushHTTP
import PushIO

/// Sends the one reply to one request, from any thread, once. Replies after the server closed are dropped.
///
/// `@unchecked Sendable`: the `evhttp_request` pointer is touched only on the server's loop thread
/// (`respond` hands the work over with `loop.execute`), and `sent` is read and written only there; the
/// work checks it runs there (`preconditionInEventLoop`).
public final class HTTPResponder: @unchecked Sendable {
    private let request: OpaquePointer
    private let server: HTTPServer
    private var sent = false
    /// The connection must close after the reply (see `HTTPServer.leavesBodyUnread`).
    private let closeAfterReply: Bool

    init(request: OpaquePointer, server: HTTPServer, closeAfterReply: Bool = false) {
        self.request = request
        self.server = server
        self.closeAfterReply = closeAfterReply
    }

    /// Sends `response`; only the first call counts.
    public func respond(_ response: HTTPResponse) {
        server.loop.executeOrRun { [self] in self.sendOnLoop(response) }
    }

    private func sendOnLoop(_ response: HTTPResponse) {
        server.loop.preconditionInEventLoop()
        guard !sent else { return }
        sent = true
        // After evhttp_free the request is gone with its connection: nothing to answer.
        guard !server.isClosed else { return }
        let headers = evhttp_request_get_output_headers(request)
        for (name, value) in response.headers {
            evhttp_add_header(headers, name, value)
        }
        if closeAfterReply { evhttp_add_header(headers, "Connection", "close") }
        guard let buffer = evbuffer_new() else {
            evhttp_send_error(request, 500, nil)
            return
        }
        defer { evbuffer_free(buffer) }
        if !response.body.isEmpty {
            response.body.withUnsafeBytes { raw in _ = evbuffer_add(buffer, raw.baseAddress, raw.count) }
        }
        evhttp_send_reply(request, Int32(response.status), HTTPServer.reasonPhrase(response.status), buffer)
    }
}
