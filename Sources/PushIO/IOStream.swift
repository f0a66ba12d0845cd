internal import CEvent
import Foundation
public import PushTLS

/// A TCP connection, optionally TLS, driven by a libevent bufferevent on one loop.
///
/// An open stream keeps itself and its delegate alive until it closes (by ``close()``, ``abort()`` or the peer).
///
/// `@unchecked Sendable`: confined to `loop`'s thread, which every public entry point checks
/// (`preconditionInEventLoop`; libevent's callbacks run there by construction); Sendable only so that jobs
/// handed to the loop can carry it.
public final class IOStream: @unchecked Sendable {
    /// The loop this stream lives on.
    public let loop: EventLoop
    /// Receives events; set before the stream is used.
    public var delegate: (any IOStreamDelegate)? {
        get {
            loop.preconditionInEventLoop()
            return receiver
        }
        set {
            loop.preconditionInEventLoop()
            receiver = newValue
        }
    }
    private var receiver: (any IOStreamDelegate)?
    var bev: OpaquePointer?
    /// The proxy handshake while a tunnel is being set up (the bufferevent then does not own its socket).
    var tunnel: IOStreamTunnel?
    /// The connection runs through a proxy's tunnel (set once the tunnel is up; `IOStream+Tunnel.swift`).
    var tunnelled = false
    /// The tunnel's proxy may hold back pieces of a write: it is not ``IOProxy/relaysAtOnce``.
    var relayHoldsBack = false
    private var keepAlive: Unmanaged<IOStream>?
    private var closeWhenFlushed = false
    /// Set while a closed stream waits for the peer to close (`IOStream+Linger.swift`).
    var lingerTimer: LoopTimer?
    /// The EOF or error waiting to be reported once the input that came before it is delivered.
    var pendingClose: IOError?
    let isTLS: Bool
    private(set) var connected = false
    /// Once connected: the TLS session (nil for plain TCP) and the socket, for direct reads and writes
    /// (`IOStream+Direct.swift`).
    var directSSL: OpaquePointer?
    var directFD: Int32 = -1
    /// TLS details after the handshake (ALPN, peer certificate); nil for plain TCP.
    public var tlsInfo: TLSSessionInfo? {
        loop.preconditionInEventLoop()
        return sessionInfo
    }
    private var sessionInfo: TLSSessionInfo?

    init(loop: EventLoop, bev: OpaquePointer, isTLS: Bool) {
        self.loop = loop
        self.isTLS = isTLS
        keepAlive = Unmanaged.passRetained(self)
        install(bev)
    }

    /// Makes `bev` the stream's bufferevent and routes its callbacks here.
    func install(_ bev: OpaquePointer) {
        self.bev = bev
        let context = Unmanaged.passUnretained(self).toOpaque()
        bufferevent_setcb(bev, ioStreamReadCallback, ioStreamWriteCallback, ioStreamEventCallback, context)
        if bufferevent_openssl_get_ssl(bev) != nil { bufferevent_openssl_set_allow_dirty_shutdown(bev, 1) }
    }

    /// True until the stream is closed.
    public var isOpen: Bool {
        loop.preconditionInEventLoop()
        return bev != nil && lingerTimer == nil
    }

    /// Bytes queued but not yet handed to the kernel.
    public var pendingOutputBytes: Int {
        loop.preconditionInEventLoop()
        guard let bev else { return 0 }
        return evbuffer_get_length(bufferevent_get_output(bev))
    }

    /// What the kernel still holds of what this stream wrote (Linux; nil elsewhere, or once closed): bytes the
    /// peer has not acknowledged (sent or not) and, of those, bytes not sent yet. On a TLS stream these are
    /// bytes of TLS records, a little more than the plaintext they carry.
    public var kernelOutputQueue: (unacknowledged: Int, unsent: Int)? {
        loop.preconditionInEventLoop()
        guard let bev else { return nil }
        let fd = directFD >= 0 ? directFD : bufferevent_getfd(bev)
        guard fd >= 0 else { return nil }
        var unacknowledged: Int32 = 0
        var unsent: Int32 = 0
        guard push_socket_output_queue(fd, &unacknowledged, &unsent) == 0 else { return nil }
        return (Int(unacknowledged), Int(unsent))
    }

    /// Writes bytes: straight to the kernel (through TLS) while nothing else waits to be written, the
    /// rest (what the kernel does not take now) queued and written when the socket is writable.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        loop.preconditionInEventLoop()
        guard let bev, lingerTimer == nil, let base = bytes.baseAddress, bytes.count > 0 else { return }
        var written = 0
        if connected, tunnel == nil, evbuffer_get_length(bufferevent_get_output(bev)) == 0 {
            written = writeDirectly(bytes)
            if written == bytes.count { return }
        }
        bufferevent_write(bev, base + written, bytes.count - written)
    }

    /// True once the stream runs through a proxy that may hold back pieces of a write (a tunnel whose proxy
    /// is not ``IOProxy/relaysAtOnce``): the writer should then hand whole requests in small groups, each
    /// through ``writeRecord(_:)`` (`IOStream+Tunnel.swift` says why).
    public var relayMayHoldBack: Bool {
        loop.preconditionInEventLoop()
        return relayHoldsBack
    }

    /// Queues bytes for writing.
    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Closes after everything queued has been written; no further events reach the delegate.
    public func close() {
        loop.preconditionInEventLoop()
        guard let bev, lingerTimer == nil else { return }
        bufferevent_disable(bev, Int16(EV_READ))
        if evbuffer_get_length(bufferevent_get_output(bev)) == 0 {
            lingerThenRelease()
        } else {
            closeWhenFlushed = true
        }
    }

    /// Drops the connection at once with a TCP reset, discarding queued output.
    public func abort() {
        loop.preconditionInEventLoop()
        guard let bev else { return }
        let fd = bufferevent_getfd(bev)
        if fd >= 0 {
            var lingering = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &lingering, socklen_t(MemoryLayout<linger>.size))
        }
        release()
    }

    /// Frees the bufferevent (closing the socket) and lets the stream go; safe to call twice.
    func release() {
        guard bev != nil || keepAlive != nil else { return }
        if let bev {
            // While tunnelling the bufferevent does not own the socket: close it here.
            let unownedFD = tunnel != nil ? bufferevent_getfd(bev) : -1
            bufferevent_setcb(bev, nil, nil, nil, nil)
            bufferevent_free(bev)
            if unownedFD >= 0 { evutil_closesocket(unownedFD) }
        }
        tunnel = nil
        self.bev = nil
        if let timer = lingerTimer {
            // It may be the timer firing now: let it go on a later loop turn.
            lingerTimer = nil
            timer.cancel()
            loop.execute { withExtendedLifetime(timer) {} }
        }
        directSSL = nil
        directFD = -1
        delegate = nil
        keepAlive?.release()
        keepAlive = nil
    }

    func markConnected() {
        guard !connected, let bev else { return }
        connected = true
        let fd = bufferevent_getfd(bev)
        if fd >= 0 { _ = push_set_nodelay(fd) }
        directFD = fd
        if isTLS, let ssl = bufferevent_openssl_get_ssl(bev) {
            sessionInfo = TLSContext.sessionInfo(ssl: ssl)
            directSSL = ssl
        }
        delegate?.streamDidConnect(self)
    }

    /// The read callback: hands over what libevent read together with what the kernel still holds (read
    /// straight through TLS), in one delivery, so the delegate answers everything that arrived at once.
    /// libevent's TLS layer reads one TLS record per readable event: delivering record by record made a
    /// loop iteration, a write and its events per 16 KB.
    func handleRead() {
        guard let bev else { return }
        if tunnel != nil { return tunnelRead() }
        let input = bufferevent_get_input(bev)
        loop.withReadBuffer { buffer in
            var count = max(0, Int(evbuffer_remove(input, buffer.baseAddress, min(evbuffer_get_length(input), buffer.count))))
            if pendingClose == nil, evbuffer_get_length(input) == 0 {
                count += readDirectly(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
            }
            if tunnelled { acknowledgeNow() }
            if count > 0 { delegate?.stream(self, didRead: UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
        }
        // More than one buffer's worth was waiting in libevent's input: the rest on the next pass.
        if let current = self.bev, current == bev, evbuffer_get_length(input) > 0 { handleRead() }
    }

    /// The write callback: the output buffer drained. libevent's TLS layer runs it deferred (checked when
    /// the buffer emptied, run on a later pass), so bytes queued in between (say, the answers a server
    /// writes right before its close) may still be waiting: a close frees the stream only once the
    /// buffer is really empty, and the next drain calls back again.
    func outputDrained() {
        if tunnel != nil { return }
        if closeWhenFlushed {
            guard let bev, evbuffer_get_length(bufferevent_get_output(bev)) == 0 else { return }
            lingerThenRelease()
            return
        }
        delegate?.streamDidDrain(self)
    }

    fileprivate func handleEvent(_ events: Int16) {
        guard let bev else { return }
        if events & Int16(BEV_EVENT_CONNECTED) != 0 {
            if tunnel != nil { return tunnelConnected() }
            markConnected()
            return
        }
        let error = describe(events: events, bev: bev)
        if let tunnel { return fail(tunnel.describe(error)) }
        // Before the stream connected there is nothing of the peer's to deliver.
        guard connected else { return fail(error) }
        finishReading(then: error)
    }

    /// Ends the stream with `error`, telling the delegate.
    func fail(_ error: IOError) {
        let delegate = self.delegate
        release()
        delegate?.stream(self, didCloseWith: error)
    }
}

private func ioStreamReadCallback(_ bev: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let stream = Unmanaged<IOStream>.fromOpaque(context!).takeUnretainedValue()
    withExtendedLifetime(stream) { stream.handleRead() }
}

private func ioStreamWriteCallback(_ bev: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let stream = Unmanaged<IOStream>.fromOpaque(context!).takeUnretainedValue()
    withExtendedLifetime(stream) { stream.outputDrained() }
}

private func ioStreamEventCallback(_ bev: OpaquePointer?, _ events: Int16, _ context: UnsafeMutableRawPointer?) {
    let stream = Unmanaged<IOStream>.fromOpaque(context!).takeUnretainedValue()
    withExtendedLifetime(stream) { stream.handleEvent(events) }
}
