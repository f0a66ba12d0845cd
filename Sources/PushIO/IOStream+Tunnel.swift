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
                if next != nil { _ = push_ssl_quickack_reads(ssl) }  // (below: why)
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
        tunnelled = true
        relayHoldsBack = !tunnel.handshake.proxy.relaysAtOnce
        bufferevent_enable(next, Int16(EV_READ | EV_WRITE))
        if tunnel.tls == nil { markConnected() }
    }
}

/// Writes and acknowledgements on a tunnelled stream, made so that a relay that splits the stream and
/// holds back a piece (Nagle's algorithm on its sockets, as tinyproxy's are) is never left waiting for a
/// delayed acknowledgement.
///
/// A relay that reads a few KB at a time and writes each piece at once, without TCP_NODELAY, holds every
/// piece after the first until the receiver acknowledges the first. A receiver that can answer what the
/// first piece holds acknowledges at once (the answer carries the ACK); one that got only part of a TLS
/// record has nothing to answer and delays its ACK (40 ms on Linux): one stall per burst.
///
/// - Towards the server (``writeRecord(_:)``): the caller hands whole requests, in groups of at most a
///   couple of KB, each written as TLS records of its own (never sharing a record with the bytes before or
///   after it), so any piece a relay passes on completes at least one record of whole requests, which the
///   server answers.
/// - From the server: our side is the receiver, and the server's records may be large (a drain of answers,
///   up to 16 KB). After every read from the socket, also one that got only part of a record (which OpenSSL
///   keeps and libevent reports nothing of), the ACK goes out at once (TCP_QUICKACK, set by a callback on
///   the TLS session's socket BIO, `push_ssl_quickack_reads`; after each read for plain TCP), so a relay
///   waiting on it sends the rest of the record without the 40 ms wait.
extension IOStream {
    /// Writes `bytes` as TLS records of their own: no record holds bytes written before or after them
    /// (up to 16 KB they are one record). Otherwise as ``write(_:)``.
    public func writeRecord(_ bytes: UnsafeRawBufferPointer) {
        loop.preconditionInEventLoop()
        guard let bev, lingerTimer == nil, let base = bytes.baseAddress, bytes.count > 0 else { return }
        let output = bufferevent_get_output(bev)
        var written = 0
        if connected, tunnel == nil, evbuffer_get_length(output) == 0 {
            written = writeDirectly(bytes)
            if written == bytes.count { return }
        }
        // The rest as a buffer chain of its own: libevent's TLS layer writes each chain as its own
        // record(s) (`SSL_write` per chain, at most 8 chains and 16 KB a pass), whereas `bufferevent_write`
        // would fill the free room of the last chain, joining these bytes to the ones before.
        guard let separate = evbuffer_new() else {
            bufferevent_write(bev, base + written, bytes.count - written)
            return
        }
        evbuffer_add(separate, base + written, bytes.count - written)
        evbuffer_add_buffer(output, separate)
        evbuffer_free(separate)
    }

    /// Sends the acknowledgement of what was read now rather than after the delayed-ACK timer
    /// (Linux TCP_QUICKACK, which the kernel clears again as it sees fit: set after every read). For plain
    /// TCP; with TLS the socket BIO's callback does it on every read.
    func acknowledgeNow() {
        guard directSSL == nil, directFD >= 0 else { return }
        _ = push_set_quickack(directFD)
    }
}
