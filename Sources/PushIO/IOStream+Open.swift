internal import CEvent
public import PushTLS

/// Opening streams: outgoing connections (straight or through a proxy's tunnel) and accepted sockets.
extension IOStream {
    /// Opens a connection to `host:port` (TLS when `tls` is given, verifying `serverName`, default `host`).
    /// With a `proxy`, TCP goes to the proxy and a tunnel to `host:port` is set up first; TLS then runs
    /// inside it, for `serverName` as without a proxy. Events reach `delegate` (connected once the tunnel
    /// and TLS are up); a failure to connect, or a refusal by the proxy, arrives as `didCloseWith`.
    public static func connect(
        on loop: EventLoop, host: String, port: Int, tls: TLSContext?, serverName: String? = nil,
        proxy: IOProxy? = nil, delegate: any IOStreamDelegate
    ) throws -> IOStream {
        loop.preconditionInEventLoop()
        if let proxy {
            return try connect(
                on: loop, through: proxy, host: host, port: port, tls: tls,
                serverName: serverName ?? host, delegate: delegate)
        }
        let bev: OpaquePointer?
        if let tls {
            let ssl = try tls.makeSSL(serverName: serverName ?? host)
            bev = bufferevent_openssl_socket_new(
                loop.base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
        } else {
            bev = bufferevent_socket_new(loop.base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
        }
        guard let bev else { throw IOError(.connect, "bufferevent_socket_new failed") }
        let stream = IOStream(loop: loop, bev: bev, isTLS: tls != nil)
        stream.delegate = delegate
        try stream.startConnecting(host: host, port: port)
        return stream
    }

    /// Resolves `host` and starts TCP to it on the current bufferevent.
    func startConnecting(host: String, port: Int) throws {
        guard let bev else { return }
        bufferevent_enable(bev, Int16(EV_READ | EV_WRITE))
        let trimmed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bufferevent_socket_connect_hostname(bev, loop.dnsBase, AF_UNSPEC, trimmed, Int32(port)) != 0 {
            release()
            throw IOError(.connect, "cannot start connecting to \(host):\(port)")
        }
    }

    /// Wraps a socket a listener accepted; for TLS the server handshake starts at once.
    static func accepted(on loop: EventLoop, fd: Int32, tls: TLSContext?) -> IOStream? {
        _ = push_set_nodelay(fd)
        let bev: OpaquePointer?
        if let tls {
            guard let ssl = try? tls.makeSSL(serverName: nil) else {
                evutil_closesocket(fd)
                return nil
            }
            bev = bufferevent_openssl_socket_new(
                loop.base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
        } else {
            bev = bufferevent_socket_new(loop.base, fd, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
        }
        guard let bev else {
            evutil_closesocket(fd)
            return nil
        }
        return IOStream(loop: loop, bev: bev, isTLS: tls != nil)
    }

    /// Starts reading an accepted stream; plain TCP reports connected at once, TLS after its handshake.
    func startAccepted() {
        guard let bev else { return }
        bufferevent_enable(bev, Int16(EV_READ | EV_WRITE))
        if !isTLS { markConnected() }
    }
}
