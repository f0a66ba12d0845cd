import Dispatch
import PushHTTP2
import PushIO

/// Runs work a few event-loop iterations later, so queued writes and closes reach the kernel first
/// (a zero-delay timer fires after the I/O that became ready in the same iteration).
///
/// Not `Sendable`: created, fired and released on one loop's thread (``after(_:on:action:)`` checks it).
final class MockAPNSLoopTurns {
    /// Iterations `stop()` grants: a TLS write and the close that follows take one each; two spare.
    static let flushTurns = 4
    /// Iterations `stop()` grants after resetting the connections, for libevent's deferred frees.
    static let releaseTurns = 2

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

    /// Stops a mock listener: runs `announce` on the loop (before the GOAWAYs go out), sends GOAWAY to every
    /// connection, lets the loop run `flushTurns` iterations so those frames and the closes reach the kernel,
    /// then closes what is left (connections still waiting for delayed answers are reset). From another
    /// thread it waits for all that; on the loop's own thread (a handler dropping the last reference) it
    /// cannot wait for the turns, and resets the connections at once.
    static func stop(_ server: HTTP2Server, on loop: EventLoop, announce: @escaping @Sendable () -> Void = {}) {
        if loop.inEventLoop {
            announce()
            server.stop(graceful: true)
            server.stop(graceful: false)
            return
        }
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            announce()
            server.stop(graceful: true)
            after(flushTurns, on: loop) {
                server.stop(graceful: false)
                // libevent frees an aborted TLS bufferevent, and closes its socket, from a deferred callback:
                // let the loop run it before the caller may shut the loop down, or the socket stays open.
                after(releaseTurns, on: loop) { done.signal() }
            }
        }
        done.wait()
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
