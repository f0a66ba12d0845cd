internal import CEvent
import Foundation
public import PushIO

/// An HTTP/1.1 server on libevent's evhttp, bound to one event loop: keep-alive, a body size limit and
/// read/write timeouts come from evhttp. Each request goes to `handler` on the loop thread with a
/// responder that may answer later from any thread.
///
/// `@unchecked Sendable`: the evhttp handle and `isClosed` are used only on `loop`'s thread (`init` and
/// ``close()`` hop there; `HTTPResponder` checks `preconditionInEventLoop`); `port` is fixed once `init` returns.
public final class HTTPServer: @unchecked Sendable {
    /// Receives each request on the loop thread; must answer it exactly once through the responder.
    public typealias Handler = @Sendable (HTTPServerRequest, HTTPResponder) -> Void

    /// The loop the server runs on.
    public let loop: EventLoop
    /// The bound address.
    public let host: String
    /// The bound port (the chosen one when 0 was asked for).
    public private(set) var port: Int = 0
    let handler: Handler
    /// TLS for every accepted connection; nil serves plain HTTP.
    public let tls: HTTPServerTLS?
    private var http: OpaquePointer?
    private(set) var isClosed = false

    /// Binds `host:port` (0 picks a free port) and starts serving on `loop`, over TLS when `tls` is given.
    /// Bodies over `maxBodyBytes` get 413; idle connections close after `timeout` (whole seconds count).
    public init(
        loop: EventLoop, host: String = "127.0.0.1", port: Int, maxBodyBytes: Int = 1 << 20,
        timeout: Duration = .seconds(30), tls: HTTPServerTLS? = nil, handler: @escaping Handler
    ) throws {
        self.loop = loop
        self.host = host
        self.handler = handler
        self.tls = tls
        let bound: Int = try loop.submitSync { [self] in
            try self.bind(
                port: port, maxBodyBytes: maxBodyBytes,
                timeoutSeconds: Int(timeout.components.seconds))
        }
        self.port = bound
    }

    deinit {
        if let http { evhttp_free(http) }
    }

    private func bind(port: Int, maxBodyBytes: Int, timeoutSeconds: Int) throws -> Int {
        guard let http = evhttp_new(loop.base) else { throw IOError(.bind, "evhttp_new failed") }
        evhttp_set_max_body_size(http, maxBodyBytes)
        evhttp_set_timeout(http, Int32(timeoutSeconds))
        // Every method reaches the handler, those evhttp does not know too (they arrive as "UNKNOWN"), so
        // the application answers an unsupported one (405 with Allow and its own error body) instead of
        // evhttp's HTML 501.
        evhttp_set_allowed_methods(http, UInt16.max)
        evhttp_set_gencb(
            http,
            { request, context in
                guard let request, let context else { return }
                Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().dispatch(request)
            }, Unmanaged.passUnretained(self).toOpaque())
        if tls != nil {
            evhttp_set_bevcb(
                http,
                { base, context in
                    guard let base, let context else { return nil }
                    return Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().tls?.makeBufferEvent(base: base)
                }, Unmanaged.passUnretained(self).toOpaque())
        }
        guard let socket = evhttp_bind_socket_with_handle(http, host, UInt16(clamping: port)) else {
            evhttp_free(http)
            throw IOError(.bind, "cannot listen on \(host):\(port)")
        }
        let fd = evhttp_bound_socket_get_fd(socket)
        // Linux copies TCP_NODELAY from the listening socket to every accepted one.
        _ = push_set_nodelay(fd)
        self.http = http
        return Self.localPort(of: fd)
    }

    private static func localPort(of fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0 else { return 0 }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default:
            return 0
        }
    }

    private func dispatch(_ request: OpaquePointer) {
        let parsed = Self.makeRequest(request)
        let closing = Self.leavesBodyUnread(parsed, command: evhttp_request_get_command(request))
        handler(parsed, HTTPResponder(request: request, server: self, closeAfterReply: closing))
    }

    /// True when evhttp did not read a body the client sent: it reads bodies only for POST, PUT and PATCH,
    /// so a GET, DELETE, TRACE or unknown method with `Content-Length` or `Transfer-Encoding` leaves body
    /// bytes that it would parse as the next request on the connection. Such a connection closes after the
    /// reply instead.
    static func leavesBodyUnread(_ request: HTTPServerRequest, command: evhttp_cmd_type) -> Bool {
        guard command != EVHTTP_REQ_POST, command != EVHTTP_REQ_PUT, command != EVHTTP_REQ_PATCH else { return false }
        if request.header("Transfer-Encoding") != nil { return true }
        if let length = request.header("Content-Length") { return length.trimmingCharacters(in: .whitespaces) != "0" }
        return false
    }

    /// Stops listening and drops every open connection (unanswered requests are not answered).
    /// Safe from any thread; waits for the loop unless called on it.
    public func close() {
        let work: @Sendable () -> Void = { [self] in
            let server = self
            guard !server.isClosed else { return }
            server.isClosed = true
            if let http = server.http { evhttp_free(http) }
            server.http = nil
        }
        if loop.inEventLoop { work() } else { try? loop.submitSync(work) }
    }

    /// The standard reason phrase for `status`.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Payload Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
