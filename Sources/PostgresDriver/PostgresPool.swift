import Foundation
import PushSync

/// A small pool of PostgreSQL connections for one instance: at most `size` connections, each living on a
/// thread of its own (`PostgresThread`), opened when first needed and opened again after one breaks.
///
/// A caller borrows one connection for one unit of work (`withConnection`, `transaction`); when all are
/// busy it waits its turn, first come first served. The borrowed connection is used only on its thread.
package final class PostgresPool: Sendable {
    /// One connection slot: the thread and, touched only on that thread, the connection.
    ///
    /// `@unchecked Sendable`: `connection` and `openedAfterLosses` are read and written only by jobs running
    /// on `thread`, which each access checks (`PostgresThread.preconditionCurrent`); `thread` is immutable.
    private final class Slot: @unchecked Sendable {
        let thread: PostgresThread
        private var held: PostgresConnection?
        var connection: PostgresConnection? {
            get {
                thread.preconditionCurrent()
                return held
            }
            set {
                thread.preconditionCurrent()
                held = newValue
            }
        }

        /// The pool's `losses` when `connection` was opened (read and written on `thread`, like it).
        private var openedAfter = 0
        var openedAfterLosses: Int {
            get {
                thread.preconditionCurrent()
                return openedAfter
            }
            set {
                thread.preconditionCurrent()
                openedAfter = newValue
            }
        }

        init(name: String) { thread = PostgresThread(name: name) }
    }

    private struct State {
        var idle: [Slot] = []
        var opened = 0
        var waiters: [CheckedContinuation<Slot, Never>] = []
        var closed = false
        /// How many calls found their connection lost. A connection opened before the latest loss is opened
        /// again before its next use: a server that restarted, or terminated its sessions, dropped every idle
        /// connection at once, and a statement sent into a dropped connection fails as if it had been lost
        /// while running (an unknown outcome the caller must answer 503), though the server never saw it.
        var losses = 0
    }

    /// The connection string every connection opens with.
    package let conninfo: String
    /// The most connections open at once.
    package let size: Int
    /// How long one call (`withConnection`, `transaction`) may wait for the server before its connection is
    /// cut (`PostgresConnection.withDeadline`); nil: no limit.
    package let callTimeout: Duration?
    /// The default `callTimeout`: 15 s (the connection is cut 2 s after the cancel request).
    package static let defaultCallTimeout: Duration = .seconds(15)
    /// What the pool's connections sent: round trips and statements (`PostgresTraffic`).
    package let traffic = PostgresTraffic()
    private let state = PThreadLock(State())
    private let announcer = PThreadLock<Announcer?>(nil)

    /// Where committed announcements go. A struct around the closure: a closure stored straight in the
    /// generic lock is reabstracted on every `inout` access, each read wrapping it in two more thunks, so
    /// calls grew slower with every announcement (a third of an instance's CPU after a few thousand).
    private struct Announcer: Sendable {
        let send: @Sendable ([String]) -> Void
    }

    /// A pool of up to `size` connections to `conninfo`, each call limited to `callTimeout`; none is opened yet.
    package init(conninfo: String, size: Int, callTimeout: Duration? = PostgresPool.defaultCallTimeout) {
        self.conninfo = conninfo
        self.size = max(1, size)
        self.callTimeout = callTimeout
    }

    /// Runs `body` with a connection of the pool on that connection's thread (reconnecting first if the
    /// last one broke), within the pool's `callTimeout`.
    package func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withConnection(timeout: callTimeout, body)
    }

    /// Runs `body` with a connection of the pool within `timeout` (nil: none, for migrations). A connection
    /// whose call failed as unavailable (broken, cut by the deadline, on a server that turned read-only) is
    /// closed: the next call connects again, to whichever of the URL's hosts is the primary by then.
    package func withConnection<T: Sendable>(
        timeout: Duration?, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        guard let slot = await checkout() else {
            throw PostgresError(kind: .connectionFailed, function: "PostgresPool", message: "the connection pool is closed")
        }
        defer { checkin(slot) }
        let conninfo = self.conninfo
        let traffic = self.traffic
        let losses = state.withLock { $0.losses }
        return try await slot.thread.run {
            let connection: PostgresConnection
            if let open = slot.connection, open.isUsable, slot.openedAfterLosses == losses {
                connection = open
            } else {
                slot.connection = nil
                connection = try PostgresConnection(conninfo: conninfo, traffic: traffic)
                slot.connection = connection
                slot.openedAfterLosses = losses
            }
            // What committed is announced even when a later statement of `body` failed.
            defer {
                let channels = connection.takeAnnouncements()
                if !channels.isEmpty, let announcer = self.announcer.withLock({ $0 }) { announcer.send(channels) }
            }
            do {
                return try connection.withDeadline(timeout) { try body(connection) }
            } catch let error as PostgresError where error.isUnavailable {
                slot.connection = nil
                if error.kind == .connectionLost { self.state.withLock { $0.losses += 1 } }
                throw error
            }
        }
    }

    /// Sends the announcements of committed writes (`PostgresConnection.announce`): set once the instance's
    /// listener runs; until then they are dropped (nothing is enqueued before the database is open).
    package func announce(with announce: @escaping @Sendable ([String]) -> Void) {
        announcer.withLock { $0 = Announcer(send: announce) }
    }

    /// Runs `body` in one transaction (see `PostgresConnection.transaction`): serialization failures and
    /// deadlocks run it again, a bounded number of times.
    package func transaction<T: Sendable>(
        isolation: PostgresIsolation = .readCommitted,
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await withConnection { try $0.transaction(isolation: isolation, body) }
    }

    /// A slot to use, waiting for one if all are busy; nil once the pool is closed.
    private func checkout() async -> Slot? {
        enum Next {
            case ready(Slot)
            case open(Int)
            case wait
            case closed
        }
        let next: Next = state.withLock { state in
            if state.closed { return .closed }
            if let slot = state.idle.popLast() { return .ready(slot) }
            if state.opened < size {
                state.opened += 1
                return .open(state.opened)
            }
            return .wait
        }
        switch next {
        case .closed: return nil
        case .ready(let slot): return slot
        case .open(let number): return Slot(name: "push-pg-\(number)")
        case .wait:
            return await withCheckedContinuation { continuation in
                let handed: Slot? = state.withLock { state in
                    if let slot = state.idle.popLast() { return slot }
                    state.waiters.append(continuation)
                    return nil
                }
                if let handed { continuation.resume(returning: handed) }
            }
        }
    }

    private func checkin(_ slot: Slot) {
        let (waiter, closed) = state.withLock { state -> (CheckedContinuation<Slot, Never>?, Bool) in
            if !state.waiters.isEmpty { return (state.waiters.removeFirst(), false) }
            if state.closed { return (nil, true) }
            state.idle.append(slot)
            return (nil, false)
        }
        waiter?.resume(returning: slot)
        if closed { Self.retire(slot) }
    }

    /// Closes the idle connections and ends their threads (connections in use close when returned and
    /// the pool is dropped).
    package func close() {
        let slots = state.withLock { state -> [Slot] in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for slot in slots { Self.retire(slot) }
    }

    /// Closes the slot's connection on its thread and ends the thread.
    private static func retire(_ slot: Slot) {
        slot.thread.execute { slot.connection = nil }
        slot.thread.stop()
    }

    deinit { close() }
}
