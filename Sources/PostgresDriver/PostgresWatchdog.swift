internal import CLibPQ
import Foundation
import PushSync

/// Cuts the connection of a call that outlives its deadline.
///
/// A primary that stops without a reset (SIGSTOP, a frozen virtual machine, a cut network) leaves a blocked
/// libpq call waiting forever: its kernel still acknowledges what is sent and answers TCP keepalives, so
/// neither keepalives nor `tcp_user_timeout` end the wait, and the server's own `statement_timeout` never
/// runs. Once a registered call's deadline passes, the watchdog first asks the server to cancel it (libpq's
/// cancel request, on a thread of its own since it blocks): a server that still runs cancels the statement
/// or a commit's wait for a synchronous standby, which PostgreSQL's own `statement_timeout` never covers
/// ("canceling wait for synchronous replication"). If the call still has not returned `cutAfter` later, the
/// watchdog shuts the socket down (`shutdown(2)`): the blocked call returns at once with a broken
/// connection, which the pool replaces (libpq then tries the URL's hosts again, finding a promoted standby).
///
/// One thread for the process, started on first use; it looks at the calls every 250 ms while any is
/// registered, and sleeps otherwise.
package final class PostgresWatchdog: Sendable {
    /// The process's watchdog.
    package static let shared = PostgresWatchdog()

    /// How long after the cancel request the connection is cut.
    package static let cutAfter: Duration = .seconds(2)

    /// A connection's cancel key (`PQgetCancel`), freed when the last holder lets go: the watchdog's cancel
    /// thread may still use it after the connection closed.
    ///
    /// `@unchecked Sendable`: `handle` is immutable (a `let`), and the only call on it from another thread,
    /// `PQcancel`, is the one libpq documents as safe from any thread (it uses its own copy of the cancel key,
    /// not the connection); `PQfreeCancel` runs in `deinit`, after the last holder.
    package final class CancelKey: @unchecked Sendable {
        fileprivate let handle: OpaquePointer?
        package init(connection: OpaquePointer) { handle = PQgetCancel(connection) }
        deinit { if let handle { PQfreeCancel(handle) } }

        /// Sends the cancel request (blocks until the server took it, or forever if it does not answer).
        fileprivate func send() {
            guard let handle else { return }
            var message = [CChar](repeating: 0, count: 256)
            _ = PQcancel(handle, &message, Int32(message.count))
        }
    }

    /// What the watchdog did to a call.
    package enum Action: Sendable {
        case none, cancelled, cut
    }

    /// One registered call: its socket, cancel key and deadline, and what the watchdog did to it.
    package final class Ticket: Sendable {
        fileprivate let id: UInt64
        fileprivate let socket: Int32
        fileprivate let cancelKey: CancelKey?
        fileprivate let deadline: ContinuousClock.Instant
        private let taken = PThreadLock(Action.none)

        fileprivate init(id: UInt64, socket: Int32, cancelKey: CancelKey?, deadline: ContinuousClock.Instant) {
            self.id = id
            self.socket = socket
            self.cancelKey = cancelKey
            self.deadline = deadline
        }

        /// What the watchdog did.
        package var action: Action { taken.withLock { $0 } }
        fileprivate func record(_ action: Action) { taken.withLock { $0 = action } }
    }

    private struct State {
        var next: UInt64 = 0
        var calls: [UInt64: Ticket] = [:]
        var running = false
    }

    private let state = PThreadLock(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Registers a call on `socket` that must end within `timeout`.
    package func register(socket: Int32, cancelKey: CancelKey?, timeout: Duration) -> Ticket {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let (ticket, start, signal) = state.withLock { state -> (Ticket, Bool, Bool) in
            state.next += 1
            let ticket = Ticket(id: state.next, socket: socket, cancelKey: cancelKey, deadline: deadline)
            let wasEmpty = state.calls.isEmpty
            state.calls[ticket.id] = ticket
            let start = !state.running
            state.running = true
            return (ticket, start, wasEmpty && !start)
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "push-pg-watchdog"
            thread.start()
        } else if signal {
            wake.signal()
        }
        return ticket
    }

    /// Ends the call's registration; its socket is no longer touched once this returns.
    package func unregister(_ ticket: Ticket) {
        _ = state.withLock { $0.calls.removeValue(forKey: ticket.id) }
    }

    private func run() {
        while true {
            let idle = state.withLock { state -> Bool in
                let now = ContinuousClock.now
                for (id, ticket) in state.calls where ticket.deadline <= now {
                    // Under the lock: the owner cannot unregister (and close the socket) meanwhile.
                    if case .none = ticket.action, let key = ticket.cancelKey {
                        ticket.record(.cancelled)
                        let thread = Thread { key.send() }
                        thread.name = "push-pg-cancel"
                        thread.start()
                    } else if ticket.deadline.advanced(by: Self.cutAfter) <= now || ticket.cancelKey == nil {
                        ticket.record(.cut)
                        _ = shutdown(ticket.socket, Int32(SHUT_RDWR))
                        state.calls.removeValue(forKey: id)
                    }
                }
                return state.calls.isEmpty
            }
            if idle {
                wake.wait()
            } else {
                _ = wake.wait(timeout: .now() + .milliseconds(250))
            }
        }
    }
}
