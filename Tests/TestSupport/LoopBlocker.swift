import Dispatch
public import PushIO
import PushSync

/// Holds an event loop's thread until `release()`, as a handler stuck in a blocking call would: a job on
/// the loop that waits on a semaphore. Everything queued on the loop after it waits too.
public final class LoopBlocker: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let entered = AsyncSemaphore(permits: 0)

    /// Queues the blocking job on `loop`.
    public init(_ loop: EventLoop) {
        loop.execute { [gate, entered] in
            entered.release()
            gate.wait()
        }
    }

    /// Returns once the job runs (the loop is held); throws `DeadlineExceeded` if it does not within `timeout`.
    public func waitUntilBlocked(within timeout: Duration = .seconds(30)) async throws {
        try await awaitEvent("the loop to run the blocking job", within: timeout) { [entered] in await entered.acquireUninterruptibly() }
    }

    /// Lets the loop go on.
    public func release() {
        gate.signal()
    }
}
