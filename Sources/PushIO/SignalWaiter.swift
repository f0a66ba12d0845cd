import Dispatch
import Foundation
import PushSync

/// Catches signals with DispatchSource handlers from the moment it is created (default handling is
/// switched off, so the process is not killed), and lets one task wait for the first of them.
/// `@unchecked`: `state` is behind a lock and `sources` is never mutated after `init` (dispatch
/// sources themselves are thread-safe; Dispatch just does not mark them Sendable).
public final class SignalWaiter: @unchecked Sendable {
    private enum State {
        case waiting
        case suspended(CheckedContinuation<Int32, Never>)
        case received(Int32)
        case done
    }

    private let state = PThreadLock(State.waiting)
    private let sources: [any DispatchSourceSignal]

    /// Installs handlers for `signals` now; call before announcing readiness.
    public init(_ signals: [Int32]) {
        let queue = DispatchQueue(label: "push.signals")
        sources = signals.map { number in
            Foundation.signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: queue)
        }
        for (source, number) in zip(sources, signals) {
            source.setEventHandler { [weak self] in self?.fire(number) }
            source.resume()
        }
    }

    private func fire(_ number: Int32) {
        let continuation = state.withLock { state -> CheckedContinuation<Int32, Never>? in
            switch state {
            case .waiting:
                state = .received(number)
                return nil
            case .suspended(let continuation):
                state = .done
                return continuation
            case .received, .done:
                return nil
            }
        }
        continuation?.resume(returning: number)
    }

    /// Suspends until one of the signals arrives (or returns at once if one already did).
    public func wait() async -> Int32 {
        let number = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let early = state.withLock { state -> Int32? in
                if case .received(let number) = state {
                    state = .done
                    return number
                }
                state = .suspended(continuation)
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
        for source in sources { source.cancel() }
        return number
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
