import Foundation
import PushSync

/// Cuts the connection of a call that outlives its deadline.
///
/// A primary that stops without a reset (SIGSTOP, a frozen virtual machine, a cut network) leaves a blocked
/// libpq call waiting forever: its kernel still acknowledges what is sent and answers TCP keepalives, so
/// neither keepalives nor `tcp_user_timeout` end the wait, and the server's own `statement_timeout` never
/// runs. The watchdog's thread shuts the socket down (`shutdown(2)`) once a registered call's deadline
/// passes: the blocked call returns at once with a broken connection, which the pool replaces (libpq then
/// tries the URL's hosts again, finding a promoted standby).
///
/// One thread for the process, started on first use; it looks at the calls every 250 ms while any is
/// registered, and sleeps otherwise.
package final class PostgresWatchdog: Sendable {
    /// The process's watchdog.
    package static let shared = PostgresWatchdog()

    /// One registered call: its socket and its deadline; `fired` once the socket was shut down.
    package final class Ticket: Sendable {
        fileprivate let id: UInt64
        fileprivate let socket: Int32
        fileprivate let deadline: ContinuousClock.Instant
        private let firedFlag = PThreadLock(false)

        fileprivate init(id: UInt64, socket: Int32, deadline: ContinuousClock.Instant) {
            self.id = id
            self.socket = socket
            self.deadline = deadline
        }

        /// True once the watchdog cut the connection.
        package var fired: Bool { firedFlag.withLock { $0 } }
        fileprivate func fire() { firedFlag.withLock { $0 = true } }
    }

    private struct State {
        var next: UInt64 = 0
        var calls: [UInt64: Ticket] = [:]
        var running = false
    }

    private let state = PThreadLock(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Registers a call on `socket` that must end within `timeout`.
    package func register(socket: Int32, timeout: Duration) -> Ticket {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let (ticket, start, signal) = state.withLock { state -> (Ticket, Bool, Bool) in
            state.next += 1
            let ticket = Ticket(id: state.next, socket: socket, deadline: deadline)
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
                    ticket.fire()
                    _ = shutdown(ticket.socket, Int32(SHUT_RDWR))
                    state.calls.removeValue(forKey: id)
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
