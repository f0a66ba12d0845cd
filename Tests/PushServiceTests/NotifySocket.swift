import Foundation

/// The manager's end of systemd's notify protocol for tests: a datagram unix socket bound at a fresh path
/// (or abstract name), whose `NOTIFY_SOCKET` value is `address`.
///
/// `Sendable`: the descriptor and names are set in `init` and never change; reads happen one at a time on
/// threads of their own (never on the concurrency pool, so a server in the same process keeps running).
final class NotifySocket: Sendable {
    /// The value for `NOTIFY_SOCKET`: a path, or `@name` for an abstract socket.
    let address: String
    private let descriptor: Int32
    private let path: String?

    init(abstract: Bool) throws {
        let name = "push-notify-\(UUID().uuidString.prefix(13))"
        path = abstract ? nil : "/tmp/" + name
        address = path ?? "@" + name
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array((path ?? name).utf8)
        if abstract { bytes.insert(0, at: 0) }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard descriptor >= 0, bound == 0 else {
            let code = errno
            if descriptor >= 0 { close(descriptor) }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    deinit {
        close(descriptor)
        if let path { unlink(path) }
    }

    /// The next message, or nil when none arrives within `timeout` seconds (0: only one already queued).
    ///
    /// The reading thread holds the socket, so the descriptor stays open until it is done: a test that
    /// stops waiting (a deadline) never leaves a thread reading a descriptor number that was closed and
    /// handed to someone else (libdispatch's own, say, which then crashes the process).
    func next(timeout: Double) async -> String? {
        await withCheckedContinuation { continuation in
            Thread { [self] in
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return continuation.resume(returning: nil) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = recv(descriptor, &buffer, buffer.count, 0)
                continuation.resume(returning: count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self))
            }.start()
        }
    }

    /// Reads messages until one has the line `field`; returns every message read, that one last, or nil
    /// when `timeout` seconds pass without a message at all.
    func read(until field: String, timeout: Double = 30) async -> [String]? {
        var messages: [String] = []
        while let message = await next(timeout: timeout) {
            messages.append(message)
            if message.split(separator: "\n").contains(Substring(field)) { return messages }
        }
        return nil
    }
}
