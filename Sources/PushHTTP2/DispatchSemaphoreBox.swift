import Dispatch

/// A semaphore for waiting on a loop job from another thread.
final class DispatchSemaphoreBox: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func signal() { semaphore.signal() }
    func wait() { semaphore.wait() }
}

import PushIO

extension EventLoop {
    /// Runs `work` on the loop thread and blocks the calling thread until it is done (runs it directly
    /// when already on the loop).
    func runAndWait(_ work: @escaping @Sendable () -> Void) {
        if inEventLoop {
            work()
            return
        }
        let done = DispatchSemaphoreBox()
        execute { work(); done.signal() }
        done.wait()
    }
}
