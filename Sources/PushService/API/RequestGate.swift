import PushSync

/// Counts HTTP requests being handled and, once draining, turns new ones away with 503.
final class RequestGate: Sendable {
    private struct State {
        var active = 0
        var draining = false
    }

    private let state = PThreadLock(State())

    /// Admits a request unless draining.
    func enter() -> Bool {
        state.withLock { state in
            guard !state.draining else { return false }
            state.active += 1
            return true
        }
    }

    /// Marks an admitted request done.
    func leave() {
        state.withLock { $0.active -= 1 }
    }

    /// Stops admitting and waits until admitted requests finished or `deadline` passed.
    func drain(deadline: Duration) async {
        state.withLock { $0.draining = true }
        let end = ContinuousClock.now + deadline
        while state.withLock({ $0.active }) > 0, ContinuousClock.now < end {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
