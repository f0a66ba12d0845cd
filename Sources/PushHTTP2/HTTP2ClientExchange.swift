import PushHTTP
import PushIO

/// One request on an ``HTTP2ClientConnection`` and the receiver of its response.
///
/// The caller makes one object per request (a subclass that keeps what it needs of the response), and
/// the connection keeps that object while the request waits for a stream and while its stream is open:
/// the connection allocates nothing per request of its own besides nghttp2's stream state, and hands
/// the response over field by field instead of building header arrays. ``HTTP2ClientConnection/send(_:completion:)``
/// wraps a closure in one for callers that want the whole `HTTPResponse`.
///
/// Confined to its connection's loop thread (not `Sendable`). An exchange is on one connection at a
/// time; after it finished it may be sent again (on this or another connection).
open class HTTP2ClientExchange {
    /// The request; read when its stream opens (change it only while it is not on a connection).
    public final var request: HTTP2Request
    /// The response's `:status` once its headers arrived, else 0.
    public final internal(set) var status = 0

    /// The connection's bookkeeping: the handle `send` returned, the stream, how much of the body went out.
    final var handle: Int64 = 0
    final var streamID: Int32 = 0
    final var bodyOffset = 0
    /// The body being written (the request's, taken when the stream opens), read by nghttp2's data callback.
    final var outgoingBody: [UInt8] = []
    /// Links of the connection's list of open exchanges (it holds them strongly through `nextOpen`).
    final var nextOpen: HTTP2ClientExchange?
    final unowned(unsafe) var previousOpen: HTTP2ClientExchange?

    /// An exchange for `request`.
    public init(request: HTTP2Request) {
        self.request = request
    }

    /// A response header field other than `:status`; `name` and `value` are valid during the call only.
    /// Keep what is needed and return: the connection must not be closed or aborted from here.
    open func receivedHeader(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {}

    /// A chunk of the response body, valid during the call only. As for ``receivedHeader(name:value:)``,
    /// the connection must not be closed or aborted from here.
    open func receivedData(_ bytes: UnsafeRawBufferPointer) {}

    /// The exchange ended, exactly once per send: `failure` is nil when the response arrived whole
    /// (``status`` is set), else says why there is none.
    open func finished(_ failure: HTTP2ClientFailure?) {}

    /// Clears what an earlier send left, before the exchange goes on a connection.
    final func prepareForSend(handle: Int64) {
        self.handle = handle
        status = 0
        streamID = 0
        bodyOffset = 0
    }
}

/// The exchange behind ``HTTP2ClientConnection/send(_:completion:)``: collects the response and calls
/// the closure once with it.
final class HTTP2ClosureExchange: HTTP2ClientExchange {
    private let completion: (HTTP2Result) -> Void
    private var headers: [(name: String, value: String)] = []
    private var body: [UInt8] = []

    init(request: HTTP2Request, completion: @escaping (HTTP2Result) -> Void) {
        self.completion = completion
        super.init(request: request)
    }

    override func receivedHeader(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    override func receivedData(_ bytes: UnsafeRawBufferPointer) {
        body.append(contentsOf: bytes)
    }

    override func finished(_ failure: HTTP2ClientFailure?) {
        if let failure {
            completion(.failure(failure))
        } else {
            completion(.success(HTTPResponse(status: status, headers: headers, body: body)))
        }
    }
}
