internal import CEvent
import PushSync
public import PushTLS

/// The TLS side of an `HTTPServer`: the server context new connections handshake with. `replace` swaps
/// it (a certificate reload); connections already open keep the context they started with.
public final class HTTPServerTLS: Sendable {
    private let current: PThreadLock<TLSContext>

    /// Serves TLS with `context`, which must be a server context.
    public init(context: TLSContext) {
        precondition(context.isServer, "HTTPServerTLS needs a server TLSContext")
        current = PThreadLock(context)
    }

    /// The context new connections use.
    public var context: TLSContext { current.withLock { $0 } }

    /// Makes `context` the one new connections use.
    public func replace(with context: TLSContext) {
        precondition(context.isServer, "HTTPServerTLS needs a server TLSContext")
        current.withLock { $0 = context }
    }

    /// A bufferevent that runs the server handshake over the socket evhttp will give it (loop thread).
    func makeBufferEvent(base: OpaquePointer) -> OpaquePointer? {
        guard let ssl = try? context.makeSSL(serverName: nil) else { return nil }
        guard
            let bev = bufferevent_openssl_socket_new(
                base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING,
                Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
        else {
            TLSContext.freeSSL(ssl)
            return nil
        }
        // A client that closes without close_notify is an ordinary end of an HTTP/1.1 connection.
        bufferevent_openssl_set_allow_dirty_shutdown(bev, 1)
        return bev
    }
}
