internal import CLibPQ
import Foundation
import PushSync

/// A dedicated connection that `LISTEN`s on fixed channels and wakes waiters when a `NOTIFY` arrives.
///
/// Its thread sleeps in `poll(2)` on the connection's socket and on a pipe used to stop it: no timers, no
/// polling loop. Each notification bumps its channel's generation; `wait(on:after:)` returns as soon as
/// the generation passes the one the caller saw, so a notification that arrives between a caller's check
/// and its wait is never missed. If the connection breaks, the thread reconnects (retrying once a second
/// while the server is away) and then bumps every channel: what was sent meanwhile may have been missed.
final class PostgresListener: Sendable {
    private struct State {
        var generations: [String: UInt64] = [:]
        var waiters: [(channel: String, after: UInt64, continuation: CheckedContinuation<UInt64, Never>)] = []
        var connected = false
    }

    /// The channels listened on.
    let channels: [String]
    private let state = PThreadLock(State())
    private let stopPipe: (read: Int32, write: Int32)

    /// Connects to `conninfo`, listens on `channels` (plain identifiers) and returns once listening.
    static func start(conninfo: String, channels: [String]) async throws -> PostgresListener {
        let listener = try PostgresListener(channels: channels)
        try await withCheckedThrowingContinuation { (started: CheckedContinuation<Void, any Error>) in
            let thread = Thread { listener.run(conninfo: conninfo, started: started) }
            thread.name = "push-pg-listen"
            thread.start()
        }
        return listener
    }

    private init(channels: [String]) throws {
        precondition(channels.allSatisfy { $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") } })
        self.channels = channels
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw PostgresError(kind: .connectionFailed, function: "pipe", message: String(cString: strerror(errno)))
        }
        stopPipe = (ends[0], ends[1])
    }

    /// The number of notifications (and reconnections) seen on `channel` so far.
    func generation(_ channel: String) -> UInt64 { state.withLock { $0.generations[channel, default: 0] } }

    /// Returns the channel's generation once it is past `after` (at once if it already is).
    func wait(on channel: String, after: UInt64) async -> UInt64 {
        await withCheckedContinuation { continuation in
            let now: UInt64? = state.withLock { state in
                let current = state.generations[channel, default: 0]
                if current > after { return current }
                state.waiters.append((channel, after, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Stops the thread and closes its connection; waiters still waiting are woken.
    func stop() {
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
    }

    private func bump(_ names: [String]) {
        let ready = state.withLock { state -> [(CheckedContinuation<UInt64, Never>, UInt64)] in
            for name in names { state.generations[name, default: 0] += 1 }
            var ready: [(CheckedContinuation<UInt64, Never>, UInt64)] = []
            state.waiters.removeAll { waiter in
                let current = state.generations[waiter.channel, default: 0]
                guard current > waiter.after else { return false }
                ready.append((waiter.continuation, current))
                return true
            }
            return ready
        }
        for (continuation, value) in ready { continuation.resume(returning: value) }
    }

    /// The thread's body: connect and listen (reporting the first outcome to `started`), then wait for
    /// input until stopped.
    private func run(conninfo: String, started: CheckedContinuation<Void, any Error>) {
        var started: CheckedContinuation<Void, any Error>? = started
        defer {
            close(stopPipe.read)
            close(stopPipe.write)
            bump(channels)  // nobody waits forever on a stopped listener
        }
        while true {
            var connection: PostgresConnection
            do {
                connection = try PostgresConnection(conninfo: conninfo)
                try connection.execute(channels.map { "LISTEN \($0)" }.joined(separator: "; "))
            } catch {
                if let first = started {
                    first.resume(throwing: error)
                    return
                }
                if waitForStop(timeoutMilliseconds: 1_000) { return }
                continue
            }
            if let first = started {
                first.resume()
                started = nil
            } else {
                bump(channels)
            }
            if listen(on: connection) { return }
        }
    }

    /// Waits for notifications on `connection`; true when stopped, false when the connection broke.
    private func listen(on connection: PostgresConnection) -> Bool {
        while true {
            var fds = [
                pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            if fds[1].revents != 0 { return true }
            guard let received = try? connection.consumeNotifications() else { return false }
            if !received.isEmpty { bump(received.map(\.channel)) }
            if !connection.isUsable { return false }
        }
    }

    /// Sleeps until stopped or `timeoutMilliseconds` pass; true when stopped.
    private func waitForStop(timeoutMilliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, timeoutMilliseconds) > 0
    }
}
