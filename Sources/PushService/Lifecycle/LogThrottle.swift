import PushSync

/// Lets at most `limit` lines through per `window` and counts the rest, so a flood of bad
/// requests cannot flood the log. Thread-safe.
final class LogThrottle: Sendable {
    private struct State {
        var windowStart: ContinuousClock.Instant?
        var admitted = 0
        var suppressed = 0
    }

    private let limit: Int
    private let window: Duration
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let state = PThreadLock(State())

    /// A throttle of `limit` lines per `window`.
    init(limit: Int, window: Duration, clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.limit = limit
        self.window = window
        self.clock = clock
    }

    /// Whether to write this line, and how many lines were held back since the last one written.
    func admit() -> (write: Bool, suppressedBefore: Int) {
        let now = clock()
        return state.withLock { state in
            if state.windowStart.map({ now - $0 >= window }) ?? true {
                state.windowStart = now
                state.admitted = 0
            }
            guard state.admitted < limit else {
                state.suppressed += 1
                return (false, 0)
            }
            state.admitted += 1
            defer { state.suppressed = 0 }
            return (true, state.suppressed)
        }
    }
}
