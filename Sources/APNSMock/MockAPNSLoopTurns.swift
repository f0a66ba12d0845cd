import PushIO

/// Runs work a few event-loop iterations later, so queued writes and closes reach the kernel first
/// (a zero-delay timer fires after the I/O that became ready in the same iteration).
///
/// Not `Sendable`: created, fired and released on one loop's thread (``after(_:on:action:)`` checks it).
final class MockAPNSLoopTurns {
    /// Iterations `stop()` grants: a TLS write and the close that follows take one each; two spare.
    static let flushTurns = 4

    private var timer: LoopTimer?
    private var remaining: Int
    private let loop: EventLoop
    private let action: () -> Void

    private init(turns: Int, loop: EventLoop, action: @escaping () -> Void) {
        remaining = turns
        self.loop = loop
        self.action = action
    }

    /// Calls `action` on `loop` after `turns` iterations. Call on the loop thread.
    static func after(_ turns: Int, on loop: EventLoop, action: @escaping () -> Void) {
        loop.preconditionInEventLoop()
        let turnsLeft = MockAPNSLoopTurns(turns: turns, loop: loop, action: action)
        let timer = LoopTimer(loop: loop) { [turnsLeft] in turnsLeft.tick() }
        turnsLeft.timer = timer
        timer.schedule(after: .zero)
    }

    private func tick() {
        remaining -= 1
        guard remaining <= 0 else {
            // One-shot and re-armed: libevent does not repeat a persistent timer whose period is zero.
            timer?.schedule(after: .zero)
            return
        }
        // Free the timer on a later turn, not inside its own callback.
        let finished = timer
        timer = nil
        loop.execute { withExtendedLifetime(finished) {} }
        action()
    }
}
