import Foundation
import Glibc

/// What a child process writes, read on a thread of its own until the pipe closes (so the child never
/// blocks on a full pipe), with a wait for the first appearance of a marker.
///
/// `@unchecked Sendable`: every field is read and written under `lock`.
final class ProcessLog: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var marker: String?
    private var waiter: CheckedContinuation<Bool, Never>?

    /// Everything read so far.
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

    /// Starts reading `handle`; returns true once `marker` was read, false when the pipe closed or
    /// `timeout` seconds passed before that.
    func follow(_ handle: FileHandle, until marker: String, timeout: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            lock.withLock {
                self.marker = marker
                waiter = continuation
            }
            let thread = Thread { [self] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    append(chunk)
                }
                resume(false)
            }
            thread.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in resume(false) }
        }
    }

    private func append(_ chunk: Data) {
        let found = lock.withLock { () -> Bool in
            data.append(chunk)
            guard let marker else { return false }
            return String(decoding: data, as: UTF8.self).contains(marker)
        }
        if found { resume(true) }
    }

    private func resume(_ value: Bool) {
        let continuation = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            defer {
                waiter = nil
                if value { marker = nil }
            }
            return waiter
        }
        continuation?.resume(returning: value)
    }
}

/// A free TCP port on 127.0.0.1 for a tool that cannot be told to pick one itself (bind to port 0, read
/// the port, close).
public enum FreePort {
    /// A port nothing listens on right now.
    public static func pick() throws -> Int {
        let socket = try LoopbackSocket(listening: false)
        defer { socket.close() }
        return socket.port
    }
}

/// A TCP socket bound to 127.0.0.1 on a port the kernel picked; optionally listening (connections then
/// complete in the kernel and wait, unaccepted, which makes a silent peer). Close it when done.
public struct LoopbackSocket: Sendable {
    /// The descriptor.
    public let fd: Int32
    /// The bound port.
    public let port: Int

    /// Binds (and, if `listening`, listens on) a fresh socket.
    public init(listening: Bool) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProxyProcessError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && (!listening || listen(fd, 16) == 0) && getsockname(fd, $0, &length) == 0
            }
        }
        guard ready else {
            Glibc.close(fd)
            throw ProxyProcessError("cannot bind a loopback port")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Closes the socket.
    public func close() { Glibc.close(fd) }
}
