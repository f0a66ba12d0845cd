internal import CEvent
public import PushHTTP
public import PushIO
public import PushTLS

/// An HTTP/1.1 client on libevent's evhttp: one connection per request (`Connection: close`), plain or TLS
/// (`bufferevent_openssl`, verifying the URL's host against `tls`). For low-rate calls such as webhook
/// deliveries; not a connection pool.
///
/// Host names resolve with the system resolver on the loop thread (evhttp without an `evdns_base`), which
/// blocks the loop for the lookup: give the client a loop of its own.
public final class HTTPClient: Sendable {
    /// The loop every connection lives on.
    public let loop: EventLoop
    /// The TLS client context for `https://` URLs (nil: `https://` URLs fail).
    public let tls: TLSContext?
    /// The largest response body kept.
    public let maxResponseBytes: Int

    /// A client on `loop`; `https://` URLs use `tls`.
    public init(loop: EventLoop, tls: TLSContext?, maxResponseBytes: Int = 64 * 1_024) {
        self.loop = loop
        self.tls = tls
        self.maxResponseBytes = maxResponseBytes
    }

    /// POSTs `body` to `url` with `headers` (Host, Content-Length and Connection are added) and returns the
    /// answer: status, header fields and the body cut at `maxResponseBytes`. Fails with an `IOError` when
    /// no answer came within `timeout` of silence, or the connection failed.
    public func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async throws -> HTTPResponse {
        let target = try HTTPClientTarget(url: url)
        if target.isTLS && tls == nil { throw IOError(.tls, "no TLS context for \(target.host)") }
        return try await withCheckedThrowingContinuation { continuation in
            let exchange = LoopBound(
                handingOver: HTTPClientExchange(loop: loop, continuation: continuation, maxResponseBytes: maxResponseBytes),
                to: loop)
            loop.execute { [tls] in
                exchange.value.start(target: target, tls: tls, headers: headers, body: body, timeout: timeout)
            }
        }
    }
}

/// Scheme, host, port and path of a URL, parsed by `evhttp_uri_parse`.
struct HTTPClientTarget: Sendable {
    let isTLS: Bool
    let host: String
    let port: Int
    let pathAndQuery: String

    init(url: String) throws {
        guard let uri = evhttp_uri_parse(url) else { throw IOError(.connect, "not a URL") }
        defer { evhttp_uri_free(uri) }
        let scheme = evhttp_uri_get_scheme(uri).map { String(cString: $0).lowercased() } ?? ""
        guard scheme == "http" || scheme == "https", let host = evhttp_uri_get_host(uri).map({ String(cString: $0) }),
            !host.isEmpty
        else { throw IOError(.connect, "not an http:// or https:// URL") }
        isTLS = scheme == "https"
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let given = Int(evhttp_uri_get_port(uri))
        port = given > 0 ? given : (isTLS ? 443 : 80)
        var path = evhttp_uri_get_path(uri).map { String(cString: $0) } ?? ""
        if path.isEmpty { path = "/" }
        if let query = evhttp_uri_get_query(uri) { path += "?" + String(cString: query) }
        pathAndQuery = path
    }

    /// The `Host` header: the host, with the port unless it is the scheme's default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isTLS ? 443 : 80) ? name : "\(name):\(port)"
    }
}

/// One request in flight: made on the caller's thread, then handed to `loop` in a ``LoopBound`` and used
/// only there (not `Sendable`); libevent holds a retained reference from `start` until the request callback.
final class HTTPClientExchange {
    private let loop: EventLoop
    private var continuation: CheckedContinuation<HTTPResponse, any Error>?
    private let maxResponseBytes: Int
    private var connection: OpaquePointer?
    private var failure: evhttp_request_error?

    init(loop: EventLoop, continuation: CheckedContinuation<HTTPResponse, any Error>, maxResponseBytes: Int) {
        self.loop = loop
        self.continuation = continuation
        self.maxResponseBytes = maxResponseBytes
    }

    func start(target: HTTPClientTarget, tls: TLSContext?, headers: [(String, String)], body: [UInt8], timeout: Duration) {
        var bev: OpaquePointer?
        if target.isTLS, let tls {
            do {
                let ssl = try tls.makeSSL(serverName: target.host)
                bev = bufferevent_openssl_socket_new(
                    loop.base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
                    Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue))
                guard let bev else { return finish(.failure(IOError(.tls, "bufferevent_openssl_socket_new failed"))) }
                bufferevent_openssl_set_allow_dirty_shutdown(bev, 1)
            } catch {
                return finish(.failure(IOError(.tls, "\(error)")))
            }
        }
        guard
            let connection = evhttp_connection_base_bufferevent_new(
                loop.base, nil, bev, target.host, UInt16(truncatingIfNeeded: target.port))
        else { return finish(.failure(IOError(.connect, "evhttp_connection_base_bufferevent_new failed"))) }
        self.connection = connection
        let (seconds, attoseconds) = max(timeout, .zero).components
        var interval = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        evhttp_connection_set_timeout_tv(connection, &interval)
        let context = Unmanaged.passRetained(self).toOpaque()
        guard
            let request = evhttp_request_new(
                { request, context in
                    let exchange = Unmanaged<HTTPClientExchange>.fromOpaque(context!).takeRetainedValue()
                    exchange.completed(request)
                }, context)
        else {
            Unmanaged<HTTPClientExchange>.fromOpaque(context).release()
            return finish(.failure(IOError(.broken, "evhttp_request_new failed")))
        }
        evhttp_request_set_error_cb(request) { error, context in
            Unmanaged<HTTPClientExchange>.fromOpaque(context!).takeUnretainedValue().failure = error
        }
        let output = evhttp_request_get_output_headers(request)
        for (name, value) in headers { evhttp_add_header(output, name, value) }
        evhttp_add_header(output, "Host", target.hostHeader)
        evhttp_add_header(output, "Content-Length", "\(body.count)")
        evhttp_add_header(output, "Connection", "close")
        body.withUnsafeBytes { _ = evbuffer_add(evhttp_request_get_output_buffer(request), $0.baseAddress, $0.count) }
        if evhttp_make_request(connection, request, EVHTTP_REQ_POST, target.pathAndQuery) != 0 {
            // libevent freed the request without calling back: give up our reference here.
            Unmanaged<HTTPClientExchange>.fromOpaque(context).release()
            finish(.failure(IOError(.connect, "cannot connect to \(target.host):\(target.port)")))
        }
    }

    private func completed(_ request: OpaquePointer?) {
        guard let request, evhttp_request_get_response_code(request) > 0 else {
            return finish(.failure(failureError()))
        }
        let status = Int(evhttp_request_get_response_code(request))
        let input = evhttp_request_get_input_buffer(request)
        let length = min(Int(evbuffer_get_length(input)), maxResponseBytes)
        var body = [UInt8](repeating: 0, count: length)
        if length > 0 { _ = body.withUnsafeMutableBytes { evbuffer_copyout(input, $0.baseAddress, length) } }
        finish(.success(HTTPResponse(status: status, headers: inputHeaders(of: request), body: body)))
    }

    private func failureError() -> IOError {
        switch failure {
        case EVREQ_HTTP_TIMEOUT: IOError(.timeout, "no answer in time")
        case EVREQ_HTTP_EOF: IOError(.closed, "connection closed before an answer")
        case EVREQ_HTTP_INVALID_HEADER: IOError(.broken, "invalid answer header")
        case EVREQ_HTTP_DATA_TOO_LONG: IOError(.broken, "answer too long")
        default: IOError(.connect, "connection failed")
        }
    }

    /// Resumes the caller once and frees the connection on a later turn of the loop (never inside
    /// libevent's callback, which still uses it).
    private func finish(_ result: Result<HTTPResponse, IOError>) {
        continuation?.resume(with: result.mapError { $0 as any Error })
        continuation = nil
        if let connection {
            self.connection = nil
            let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
            loop.execute { evhttp_connection_free(OpaquePointer(bitPattern: address)) }
        }
    }
}
