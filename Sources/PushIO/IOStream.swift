internal import CEvent
import PushTLS
import Foundation

/// A TCP connection, optionally TLS, driven by a libevent bufferevent on one loop.
///
/// `@unchecked Sendable`: every method must be called on `loop`'s thread; the type is Sendable only so
/// that jobs handed to the loop can carry it. An open stream keeps itself and its delegate alive until it
/// closes (by ``close()``, ``abort()`` or the peer).
public final class IOStream: @unchecked Sendable {
    /// The loop this stream lives on.
    public let loop: EventLoop
    /// Receives events; set before the stream is used.
    public var delegate: (any IOStreamDelegate)?
    private var bev: OpaquePointer?
    private var keepAlive: Unmanaged<IOStream>?
    private var closeWhenFlushed = false
    private let isTLS: Bool
    private var connected = false
    /// TLS details after the handshake (ALPN, peer certificate); nil for plain TCP.
    public private(set) var tlsInfo: TLSSessionInfo?

    private init(loop: EventLoop, bev: OpaquePointer, isTLS: Bool) {
        self.loop = loop
        self.bev = bev
        self.isTLS = isTLS
        keepAlive = Unmanaged.passRetained(self)
        let context = Unmanaged.passUnretained(self).toOpaque()
        bufferevent_setcb(bev, ioStreamReadCallback, ioStreamWriteCallback, ioStreamEventCallback, context)
        if isTLS { bufferevent_openssl_set_allow_dirty_shutdown(bev, 1) }
    }

    /// Opens a connection to `host:port` (TLS when `tls` is given, verifying `serverName`, default `host`).
    /// Events reach `delegate`; a failure to connect arrives as `didCloseWith`.
    public static func connect(
        on loop: EventLoop, host: String, port: Int, tls: TLSContext?, serverName: String? = nil,
        delegate: any IOStreamDelegate
    ) throws -> IOStream {
        precondition(loop.inEventLoop, "IOStream.connect must run on the loop thread")
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
        bufferevent_enable(bev, Int16(EV_READ | EV_WRITE))
        let trimmed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bufferevent_socket_connect_hostname(bev, loop.dnsBase, AF_UNSPEC, trimmed, Int32(port)) != 0 {
            stream.release()
            throw IOError(.connect, "cannot start connecting to \(host):\(port)")
        }
        return stream
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

    /// True until the stream is closed.
    public var isOpen: Bool { bev != nil }

    /// Bytes queued but not yet handed to the kernel.
    public var pendingOutputBytes: Int {
        guard let bev else { return 0 }
        return evbuffer_get_length(bufferevent_get_output(bev))
    }

    /// Queues bytes for writing.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard let bev, let base = bytes.baseAddress, bytes.count > 0 else { return }
        bufferevent_write(bev, base, bytes.count)
    }

    /// Queues bytes for writing.
    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Closes after everything queued has been written; no further events reach the delegate.
    public func close() {
        guard let bev else { return }
        bufferevent_disable(bev, Int16(EV_READ))
        if evbuffer_get_length(bufferevent_get_output(bev)) == 0 {
            release()
        } else {
            closeWhenFlushed = true
        }
    }

    /// Drops the connection at once with a TCP reset, discarding queued output.
    public func abort() {
        guard let bev else { return }
        let fd = bufferevent_getfd(bev)
        if fd >= 0 {
            var lingering = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &lingering, socklen_t(MemoryLayout<linger>.size))
        }
        release()
    }

    private func release() {
        guard let bev else { return }
        bufferevent_setcb(bev, nil, nil, nil, nil)
        bufferevent_free(bev)
        self.bev = nil
        delegate = nil
        keepAlive?.release()
        keepAlive = nil
    }

    private func markConnected() {
        guard !connected, let bev else { return }
        connected = true
        let fd = bufferevent_getfd(bev)
        if fd >= 0 { _ = push_set_nodelay(fd) }
        if isTLS, let ssl = bufferevent_openssl_get_ssl(bev) {
            tlsInfo = TLSContext.sessionInfo(ssl: ssl)
        }
        delegate?.streamDidConnect(self)
    }

    fileprivate func handleRead() {
        guard let bev else { return }
        let input = bufferevent_get_input(bev)
        var vectors = [iovec](repeating: iovec(), count: 8)
        while let current = self.bev, current == bev, evbuffer_get_length(input) > 0 {
            let count = Int(evbuffer_peek(input, -1, nil, &vectors, 8))
            var consumed = 0
            for index in 0..<min(count, 8) {
                let chunk = UnsafeRawBufferPointer(start: vectors[index].iov_base, count: vectors[index].iov_len)
                consumed += chunk.count
                delegate?.stream(self, didRead: chunk)
                if self.bev == nil { return }
            }
            evbuffer_drain(input, consumed)
        }
    }

    fileprivate func handleWrite() {
        if closeWhenFlushed {
            release()
            return
        }
        delegate?.streamDidDrain(self)
    }

    fileprivate func handleEvent(_ events: Int16) {
        guard let bev else { return }
        if events & Int16(BEV_EVENT_CONNECTED) != 0 {
            markConnected()
            return
        }
        let error = describe(events: events, bev: bev)
        let delegate = self.delegate
        release()
        delegate?.stream(self, didCloseWith: error)
    }

    private func describe(events: Int16, bev: OpaquePointer) -> IOError {
        if isTLS {
            var messages: [String] = []
            while true {
                let code = bufferevent_get_openssl_error(bev)
                if code == 0 { break }
                messages.append(openSSLErrorText(code))
            }
            if let ssl = bufferevent_openssl_get_ssl(bev) {
                let verify = SSL_get_verify_result(ssl)
                if verify != X509_V_OK {
                    messages.append("certificate verify: " + String(cString: X509_verify_cert_error_string(verify)))
                }
            }
            if !messages.isEmpty {
                return IOError(.tls, messages.joined(separator: "; "))
            }
        }
        if events & Int16(BEV_EVENT_EOF) != 0 {
            return IOError(connected ? .closed : .connect, connected ? "peer closed the connection" : "closed before connecting")
        }
        if events & Int16(BEV_EVENT_TIMEOUT) != 0 { return IOError(.timeout, "socket timed out") }
        let dnsError = bufferevent_socket_get_dns_error(bev)
        if dnsError != 0 { return IOError(.resolve, String(cString: evutil_gai_strerror(dnsError))) }
        let code = errno
        let text = code != 0 ? String(cString: strerror(code)) : "socket error"
        return IOError(connected ? .broken : .connect, text)
    }
}

private func ioStreamReadCallback(_ bev: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let stream = Unmanaged<IOStream>.fromOpaque(context!).takeUnretainedValue()
    withExtendedLifetime(stream) { stream.handleRead() }
}

private func ioStreamWriteCallback(_ bev: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let stream = Unmanaged<IOStream>.fromOpaque(context!).takeUnretainedValue()
    withExtendedLifetime(stream) { stream.handleWrite() }
}

private func ioStreamEventCallback(_ bev: OpaquePointer?, _ events: Int16, _ context: UnsafeMutableRawPointer?) {
    let stream = Unmanaged<IOStream>.fromOpaque(context!).takeUnretainedValue()
    withExtendedLifetime(stream) { stream.handleEvent(events) }
}

/// OpenSSL's text for an error code.
func openSSLErrorText(_ code: UInt) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
        ERR_error_string_n(code, buffer.baseAddress, 256)
        return String(cString: buffer.baseAddress!)
    }
}
