internal import CEvent
import Foundation
import PushIO
import PushSync

/// Catches signals from the moment it is created and lets one task wait for them, one at a time.
///
/// Built on libevent's signal events on one loop shared by every waiter of the process (libevent lets only
/// one event base handle signals): libevent installs a process-wide `sigaction`
/// handler that writes the signal number to a socket pair, so a signal is seen whichever thread the
/// kernel delivers it to. (Dispatch signal sources on Linux lose a signal that lands on a thread that
/// does not block it, which left a process running after SIGTERM now and then.) Signals are caught for
/// as long as the waiter lives; each `wait()` returns the next one not yet returned, in arrival order.
///
/// `state` is behind a lock; the libevent events live on the signal loop, in a ``LoopBound``.
public final class SignalWaiter: Sendable {
    fileprivate struct State {
        /// Signals received and not yet returned by `wait()`.
        var received: [Int32] = []
        /// The task suspended in `wait()`, if any.
        var suspended: CheckedContinuation<Int32, Never>?
    }

    private let state = PThreadLock(State())
    /// The process's one signal-handling loop, started by the first waiter and kept for the process's life.
    private static let loop = EventLoop(name: "push-signals")
    /// One persistent signal event per number, made and freed on the loop thread.
    private let events: LoopBound<[OpaquePointer]>

    /// Installs handlers for `signals` now (they are in place when this returns); call before announcing
    /// readiness.
    public init(_ signals: [Int32]) {
        let state = self.state
        let made = try? Self.loop.submitSync { [signals] () -> (events: LoopBound<[OpaquePointer]>, count: Int) in
            let list = Self.installEvents(for: signals, reporting: state)
            return (LoopBound(list, loop: Self.loop), list.count)
        }
        guard let made, made.count == signals.count else {
            preconditionFailure("libevent could not install the signal handlers")
        }
        events = made.events
    }

    /// Adds one persistent signal event per number to the loop's base (on the loop thread); each fires
    /// into `state`, which outlives the events (`deinit` frees them first).
    private static func installEvents(for signals: [Int32], reporting state: PThreadLock<State>) -> [OpaquePointer] {
        let context = Unmanaged.passUnretained(state).toOpaque()
        return signals.compactMap { number -> OpaquePointer? in
            guard
                let event = event_new(
                    loop.base, number, Int16(EV_SIGNAL | EV_PERSIST),
                    { number, _, context in
                        SignalWaiter.fire(Int32(number), into: Unmanaged<PThreadLock<State>>.fromOpaque(context!).takeUnretainedValue())
                    }, context)
            else { return nil }
            guard event_add(event, nil) == 0 else {
                event_free(event)
                return nil
            }
            return event
        }
    }

    deinit {
        let events = self.events
        _ = try? Self.loop.submitSync {
            for event in events.value {
                event_del(event)
                event_free(event)
            }
        }
    }

    fileprivate static func fire(_ number: Int32, into state: PThreadLock<State>) {
        let continuation = state.withLock { state -> CheckedContinuation<Int32, Never>? in
            guard let continuation = state.suspended else {
                state.received.append(number)
                return nil
            }
            state.suspended = nil
            return continuation
        }
        continuation?.resume(returning: number)
    }

    /// Suspends until a signal arrives that no earlier `wait()` returned (or returns at once if one did);
    /// one task waits at a time.
    public func wait() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let early = state.withLock { state -> Int32? in
                if !state.received.isEmpty { return state.received.removeFirst() }
                precondition(state.suspended == nil, "SignalWaiter.wait() called by two tasks at once")
                state.suspended = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    /// The conventional name of a signal number ("SIGTERM", "SIGINT", or "signal N").
    public static func name(of number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }
}
