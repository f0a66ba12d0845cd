internal import CEvent
import PushTLS

/// A stream's tunnel while the proxy handshake runs: what to start on the socket once it is up.
struct IOStreamTunnel {
    /// The handshake with the proxy.
    var handshake: IOProxyHandshake
    /// TLS to start inside the tunnel; nil for plain TCP.
    let tls: TLSContext?
    /// The name TLS sends as SNI and verifies: the target's, never the proxy's.
    let serverName: String
    /// TCP to the proxy is up and the greeting went out.
    var proxyConnected = false

    /// `error` (from the socket to the proxy) said in terms of the proxy.
    func describe(_ error: IOError) -> IOError {
        let proxy = handshake.proxy
        if proxyConnected {
            let what = error.kind == .timeout ? "timed out" : "closed the connection"
            return IOError(.proxy, "proxy \(proxy) \(what) while setting up the tunnel (\(error.message))")
        }
        return IOError(error.kind, "cannot reach proxy \(proxy): \(error.message)")
    }
}

extension IOStream {
    /// A stream that first connects to `proxy` and asks it for a tunnel to `host:port`.
    static func connect(
        on loop: EventLoop, through proxy: IOProxy, host: String, port: Int, tls: TLSContext?,
        serverName: String, delegate: any IOStreamDelegate
    ) throws -> IOStream {
        // Not BEV_OPT_CLOSE_ON_FREE: the socket moves to the bufferevent made once the tunnel is up.
        guard let bev = bufferevent_socket_new(loop.base, -1, 0) else {
            throw IOError(.connect, "bufferevent_socket_new failed")
        }
        let stream = IOStream(loop: loop, bev: bev, isTLS: tls != nil)
        stream.tunnel = IOStreamTunnel(
            handshake: IOProxyHandshake(proxy: proxy, targetHost: host, targetPort: port), tls: tls,
            serverName: serverName)
        stream.delegate = delegate
        try stream.startConnecting(host: proxy.host, port: proxy.port)
        return stream
    }

    /// TCP to the proxy is up: send the greeting.
    func tunnelConnected() {
        loop.preconditionInEventLoop()
        guard let bev, let greeting = tunnel?.handshake.greeting() else { return }
        tunnel?.proxyConnected = true
        let fd = bufferevent_getfd(bev)
        if fd >= 0 { _ = push_set_nodelay(fd) }
        write(greeting)
    }

    /// Bytes from the proxy during the handshake.
    func tunnelRead() {
        loop.preconditionInEventLoop()
        guard let bev, tunnel != nil else { return }
        let input = bufferevent_get_input(bev)
        let length = evbuffer_get_length(input)
        guard length > 0, let bytes = evbuffer_pullup(input, -1) else { return }
        let step = tunnel!.handshake.receive(UnsafeRawBufferPointer(start: bytes, count: length))
        evbuffer_drain(input, length)
        switch step {
        case .needMore:
            return
        case .send(let reply):
            write(reply)
        case .established(let extra):
            guard extra.isEmpty else {
                return fail(IOError(.proxy, "proxy sent \(extra.count) bytes before the target spoke"))
            }
            upgrade()
        case .failed(let error):
            fail(error)
        }
    }

    /// Moves the tunnelled socket to a bufferevent of its own (TLS for the target when asked) and starts it.
    private func upgrade() {
        guard let old = bev, let tunnel else { return }
        let fd = bufferevent_getfd(old)
        bufferevent_setcb(old, nil, nil, nil, nil)
        bufferevent_free(old)  // leaves the socket open: it was made without BEV_OPT_CLOSE_ON_FREE
        self.bev = nil
        self.tunnel = nil
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)
        var next: OpaquePointer?
        var failure = "bufferevent_socket_new failed"
        if let tls = tunnel.tls {
            do {
                let ssl = try tls.makeSSL(serverName: tunnel.serverName)
                next = bufferevent_openssl_socket_new(loop.base, fd, ssl, BUFFEREVENT_SSL_CONNECTING, options)
            } catch {
                failure = "\(error)"
            }
        } else {
            next = bufferevent_socket_new(loop.base, fd, options)
        }
        guard let next else {
            evutil_closesocket(fd)
            return fail(IOError(.tls, failure))
        }
        install(next)
        bufferevent_enable(next, Int16(EV_READ | EV_WRITE))
        if tunnel.tls == nil { markConnected() }
    }
}
