internal import CEvent
import Foundation
public import PushTLS

/// A listening TCP socket on one loop; each accepted connection becomes an ``IOStream`` (TLS when a
/// server context is given). Create and close on the loop thread.
///
/// `@unchecked Sendable`: confined to its loop's thread, which `init` and ``close()`` check
/// (`preconditionInEventLoop`; accepts arrive there from libevent); `port` and `host` are fixed once
/// `init` returns and may be read anywhere.
public final class IOListener: @unchecked Sendable {
    /// The loop accepting connections.
    public let loop: EventLoop
    /// The bound port (the real one when asked for port 0).
    public private(set) var port: Int = 0
    /// The bound host as given.
    public let host: String
    private var listener: OpaquePointer?
    private let tls: TLSContext?
    private let onAccept: (IOStream) -> Void

    /// Binds `host:port` (IPv4 or IPv6 literal, or "localhost"; port 0 picks a free one) and starts accepting.
    /// `onAccept` must set the stream's delegate; the stream then starts reading.
    public init(loop: EventLoop, host: String, port: Int, tls: TLSContext?, onAccept: @escaping (IOStream) -> Void) throws {
        loop.preconditionInEventLoop()
        self.loop = loop
        self.host = host
        self.tls = tls
        self.onAccept = onAccept
        let literal = host == "localhost" ? "127.0.0.1" : host
        let text = literal.contains(":") ? "[\(literal)]:\(port)" : "\(literal):\(port)"
        guard let (address, length_) = Self.socketAddress(host: literal, port: port) else {
            throw IOError(.bind, "not an IP address: \(host)")
        }
        var storage = address
        let context = Unmanaged.passUnretained(self).toOpaque()
        let flags = UInt32(LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC)
        listener = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                evconnlistener_new_bind(loop.base, ioListenerAccept, context, flags, 1024, $0, length_)
            }
        }
        guard let listener else {
            throw IOError(.bind, "cannot listen on \(text): " + String(cString: strerror(errno)))
        }
        self.port = Self.boundPort(evconnlistener_get_fd(listener))
    }

    deinit {
        if let listener { evconnlistener_free(listener) }
    }

    /// An IPv4 or IPv6 socket address for a literal host.
    static func socketAddress(host: String, port: Int) -> (sockaddr_storage, Int32)? {
        let trimmed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if trimmed.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            guard inet_pton(AF_INET6, trimmed, &address.sin6_addr) == 1 else { return nil }
            return stored(address)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        guard inet_pton(AF_INET, trimmed, &address.sin_addr) == 1 else { return nil }
        return stored(address)
    }

    /// `address` (a `sockaddr_in` or `sockaddr_in6`) in a `sockaddr_storage`, with its own length.
    private static func stored<Address>(_ address: Address) -> (sockaddr_storage, Int32) {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: Address.self) }
        return (storage, Int32(MemoryLayout<Address>.size))
    }

    private static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        if Int32(storage.ss_family) == AF_INET6 {
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// Stops accepting; streams already accepted stay open.
    public func close() {
        loop.preconditionInEventLoop()
        if let listener { evconnlistener_free(listener) }
        listener = nil
    }

    fileprivate func accept(fd: Int32) {
        guard let stream = IOStream.accepted(on: loop, fd: fd, tls: tls) else { return }
        onAccept(stream)
        stream.startAccepted()
    }
}

private func ioListenerAccept(
    _ listener: OpaquePointer?, _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?,
    _ length: Int32, _ context: UnsafeMutableRawPointer?
) {
    Unmanaged<IOListener>.fromOpaque(context!).takeUnretainedValue().accept(fd: fd)
}
