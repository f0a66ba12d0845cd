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
    /// Waits for the text to meet a condition (`wait(until:)`), resumed as soon as it does, or with false
    /// once the pipe closed.
    private var conditionWaiters: [(holds: @Sendable (String) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
    private var closed = false

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
                closeConditionWaiters()
            }
            thread.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in resume(false) }
        }
    }

    /// Returns true once the text read so far meets `holds` (at once if it already does), false when the
    /// pipe closed first. No deadline of its own: wrap it in `awaitEvent`.
    func wait(until holds: @escaping @Sendable (String) -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            let answer = lock.withLock { () -> Bool? in
                if holds(String(decoding: data, as: UTF8.self)) { return true }
                if closed { return false }
                conditionWaiters.append((holds, continuation))
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    private func append(_ chunk: Data) {
        let (found, met) = lock.withLock { () -> (Bool, [CheckedContinuation<Bool, Never>]) in
            data.append(chunk)
            guard marker != nil || !conditionWaiters.isEmpty else { return (false, []) }
            let text = String(decoding: data, as: UTF8.self)
            var met: [CheckedContinuation<Bool, Never>] = []
            conditionWaiters.removeAll { waiter in
                guard waiter.holds(text) else { return false }
                met.append(waiter.continuation)
                return true
            }
            return (marker.map { text.contains($0) } ?? false, met)
        }
        if found { resume(true) }
        for continuation in met { continuation.resume(returning: true) }
    }

    private func closeConditionWaiters() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Bool, Never>] in
            closed = true
            defer { conditionWaiters.removeAll() }
            return conditionWaiters.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: false) }
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
