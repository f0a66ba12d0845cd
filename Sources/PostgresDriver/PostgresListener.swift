internal import CLibPQ
import Foundation
import PushSync

/// A dedicated connection that `LISTEN`s on fixed channels and wakes waiters when a `NOTIFY` arrives, and
/// that sends the instance's own notifications (`announce`).
///
/// Its thread sleeps in `poll(2)` on the connection's socket and on two pipes, one to stop it and one to
/// hand it announcements: no timers, no polling loop. Each notification bumps its channel's generation;
/// `wait(on:after:)` returns as soon as the generation passes the one the caller saw, so a notification
/// that arrives between a caller's check and its wait is never missed. If the connection breaks, the thread
/// reconnects (retrying once a second while the server is away) and then bumps every channel: what was sent
/// meanwhile may have been missed.
///
/// Announcements are wake-ups, not data: the rows they announce are committed before they are handed over.
/// Those that arrive while one `NOTIFY` is on its way go out together in the next one, so however many
/// writers commit at once the instance sends about one notification per round trip, and in no writer's
/// transaction. The connection commits them without waiting for their WAL flush. One lost to a crash costs
/// a wake-up, not a row: every worker also looks for work on its retry tick.
///
/// A server that stops answering without closing the connection (SIGSTOP, a frozen machine) would leave the
/// thread waiting forever: after `idlePing` without traffic the thread sends `SELECT 1`, and it and every
/// `NOTIFY` must be answered within `callTimeout` (`PostgresConnection.withDeadline`), or the thread connects
/// again (to whichever of the URL's hosts is the primary by then).
package final class PostgresListener: Sendable {
    private struct State {
        var generations: [String: UInt64] = [:]
        var waiters: [(channel: String, after: UInt64, continuation: CheckedContinuation<UInt64, Never>)] = []
        var connected = false
        /// Channels announced and not yet sent, in order of their first announcement.
        var announcing: [String] = []
        /// True while a byte on the announce pipe waits to be read.
        var announceSignalled = false
        /// `NOTIFY` round trips sent so far.
        var notifies: UInt64 = 0
        /// True once the thread has ended: the pipes are closed (and their descriptor numbers may belong to
        /// other files by now), so nothing writes to them any more.
        var ended = false
    }

    /// The channels listened on.
    package let channels: [String]
    private let state = PThreadLock(State())
    private let stopPipe: (read: Int32, write: Int32)
    private let announcePipe: (read: Int32, write: Int32)
    /// How long the connection may be idle before the thread checks that the server still answers.
    private static let idlePing: Int32 = 10_000
    /// How long the server may take to answer the listener's statements.
    private static let callTimeout: Duration = .seconds(10)

    /// Connects to `conninfo`, listens on `channels` (plain identifiers) and returns once listening.
    package static func start(conninfo: String, channels: [String]) async throws -> PostgresListener {
        let listener = try PostgresListener(channels: channels)
        try await withCheckedThrowingContinuation { (started: CheckedContinuation<Void, any Error>) in
            let thread = Thread { listener.run(conninfo: conninfo, started: started) }
            thread.name = "push-pg-listen"
            thread.start()
        }
        return listener
    }

    private init(channels: [String]) throws {
        precondition(channels.allSatisfy(Self.isChannelName))
        self.channels = channels
        var stop: [Int32] = [0, 0]
        var announce: [Int32] = [0, 0]
        guard pipe(&stop) == 0 else {
            throw PostgresError(kind: .connectionFailed, function: "pipe", message: String(cString: strerror(errno)))
        }
        // The announce pipe's read end never blocks: the thread drains it whole after each wake-up.
        guard pipe(&announce) == 0, fcntl(announce[0], F_SETFL, O_NONBLOCK) == 0 else {
            let message = String(cString: strerror(errno))
            for end in stop + announce where end > 0 { close(end) }
            throw PostgresError(kind: .connectionFailed, function: "pipe", message: message)
        }
        stopPipe = (stop[0], stop[1])
        announcePipe = (announce[0], announce[1])
    }

    /// True for a channel name this listener can use unquoted: ASCII letters, digits and `_`.
    package static func isChannelName(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// Sends a notification on each of `names` (plain identifiers, see `isChannelName`) to every listening
    /// instance, this one included, soon and without waiting: together with any announced meanwhile, in
    /// one `NOTIFY` round trip of the listening connection. Call it once the rows it announces are committed.
    package func announce(_ names: [String]) {
        precondition(names.allSatisfy(Self.isChannelName))
        state.withLock { state in
            guard !state.ended else { return }
            for name in names where !state.announcing.contains(name) { state.announcing.append(name) }
            guard !state.announcing.isEmpty, !state.announceSignalled else { return }
            state.announceSignalled = true
            // Under the lock, so the thread cannot close the pipe in between (one byte: never blocks).
            var byte: UInt8 = 1
            _ = write(announcePipe.write, &byte, 1)
        }
    }

    /// How many `NOTIFY` round trips this listener has sent (announcements sent together count once).
    package var notifiesSent: UInt64 { state.withLock { $0.notifies } }

    /// The number of notifications (and reconnections) seen on `channel` so far.
    package func generation(_ channel: String) -> UInt64 { state.withLock { $0.generations[channel, default: 0] } }

    /// Returns the channel's generation once it is past `after` (at once if it already is).
    package func wait(on channel: String, after: UInt64) async -> UInt64 {
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
    package func stop() {
        state.withLock { state in
            guard !state.ended else { return }
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
        }
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
            state.withLock { $0.ended = true }
            close(stopPipe.read)
            close(stopPipe.write)
            close(announcePipe.read)
            close(announcePipe.write)
            bump(channels)  // nobody waits forever on a stopped listener
        }
        while true {
            var connection: PostgresConnection
            do {
                connection = try PostgresConnection(conninfo: conninfo)
                // This session only listens and notifies: its commits need not wait for the WAL.
                let listen = (["SET synchronous_commit = off"] + channels.map { "LISTEN \($0)" }).joined(separator: "; ")
                try connection.withDeadline(Self.callTimeout) { try connection.execute(listen) }
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

    /// Waits for notifications on `connection` and sends the announcements handed over; true when stopped,
    /// false when the connection broke.
    private func listen(on connection: PostgresConnection) -> Bool {
        // Announcements made while the connection was down go out first.
        guard sendAnnouncements(on: connection) else { return false }
        while true {
            var fds = [
                pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0),
                pollfd(fd: announcePipe.read, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 3, Self.idlePing)
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            if ready == 0 {
                do {
                    try connection.withDeadline(Self.callTimeout) { try connection.execute("SELECT 1") }
                } catch {
                    return false
                }
                // Notifications that came with the answer wait in libpq: read below.
            }
            if fds[1].revents != 0 { return true }
            if fds[2].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                while read(announcePipe.read, &bytes, bytes.count) > 0 {}
                guard sendAnnouncements(on: connection) else { return false }
            }
            // Sending reads the connection too: notifications it brought wait in libpq, not on the socket.
            guard let received = try? connection.consumeNotifications() else { return false }
            if !received.isEmpty { bump(received.map(\.channel)) }
            if !connection.isUsable { return false }
        }
    }

    /// Sends every channel announced so far in one round trip; false (the channels kept for the next
    /// connection) when the connection broke. One the server refuses on a working connection is dropped
    /// rather than sent again and again: the workers' retry ticks stand in for it.
    private func sendAnnouncements(on connection: PostgresConnection) -> Bool {
        let names = state.withLock { state -> [String] in
            state.announceSignalled = false
            defer { state.announcing.removeAll() }
            return state.announcing
        }
        guard !names.isEmpty else { return true }
        do {
            try connection.withDeadline(Self.callTimeout) {
                try connection.execute(names.map { "NOTIFY \($0)" }.joined(separator: "; "))
            }
            state.withLock { $0.notifies += 1 }
            return true
        } catch {
            // A standby (or a demoted primary) refuses NOTIFY as read-only: connect again too.
            guard !connection.isUsable || (error as? PostgresError)?.isReadOnly == true else { return true }
            announce(names)
            return false
        }
    }

    /// Sleeps until stopped or `timeoutMilliseconds` pass; true when stopped.
    private func waitForStop(timeoutMilliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, timeoutMilliseconds) > 0
    }
}
