import Foundation

/// The sender half of systemd's notify protocol (`sd_notify(3)`), without libsystemd: each message is one
/// datagram of newline-separated `KEY=value` fields sent to the unix socket named by `NOTIFY_SOCKET`
/// (an abstract socket when the name starts with `@`).
///
/// Stateless and thread-safe: every message opens, sends on and closes its own socket, as libsystemd does.
public struct SystemdNotifier: Sendable {
    /// The socket address as given in `NOTIFY_SOCKET`.
    public let socketPath: String

    /// A notifier for `environment["NOTIFY_SOCKET"]`; nil when it is unset, empty or not a unix socket name
    /// (then the process was not started by systemd with `Type=notify`, and there is no one to tell).
    public init?(environment: [String: String]) {
        guard let path = environment["NOTIFY_SOCKET"], path.hasPrefix("/") || path.hasPrefix("@") else { return nil }
        self.init(socketPath: path)
    }

    /// A notifier for the socket at `socketPath` (`/path` or `@abstract-name`).
    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Sends `fields` (such as `READY=1`) as one message; returns false when it could not be sent.
    @discardableResult
    public func send(_ fields: [String]) -> Bool {
        send(fields, flags: Int32(MSG_NOSIGNAL))
    }

    /// Sends `fields` with `sendto` flags `flags`.
    private func send(_ fields: [String], flags: Int32) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var name = Array(socketPath.utf8)
        if name.first == UInt8(ascii: "@") { name[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // A path needs room for its terminating zero; an abstract name uses the whole length as given.
        guard !name.isEmpty, name.count < capacity || (name[0] == 0 && name.count <= capacity) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count + (name[0] == 0 ? 0 : 1))
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let message = Array(fields.joined(separator: "\n").utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                message.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, flags, socketAddress, length) }
            }
        }
        return sent == message.count
    }

    /// `READY=1` with a status line: the service serves from now on.
    @discardableResult
    public func ready(status: String) -> Bool { send(["READY=1", "STATUS=\(status)"]) }

    /// `RELOADING=1` with the monotonic time systemd wants with it (from systemd 253 on).
    @discardableResult
    public func reloading() -> Bool { send(["RELOADING=1", "MONOTONIC_USEC=\(Self.monotonicMicroseconds())"]) }

    /// `STOPPING=1`: the service has begun to shut down.
    @discardableResult
    public func stopping() -> Bool { send(["STOPPING=1", "STATUS=stopping"]) }

    /// `WATCHDOG=1`: the service is alive. Never waits: when the receiver's queue is full the ping is dropped
    /// (and false returned) rather than holding the thread that sends it, as the next ping comes soon.
    @discardableResult
    public func watchdog() -> Bool { send(["WATCHDOG=1"], flags: Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }

    /// How often to send `WATCHDOG=1`: half of `WATCHDOG_USEC`, as `sd_watchdog_enabled(3)` advises; nil
    /// when the watchdog is off or `WATCHDOG_PID` names another process.
    public static func watchdogInterval(environment: [String: String]) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"], !pid.isEmpty, pid != "\(getpid())" { return nil }
        return .microseconds(Double(microseconds) / 2)
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
