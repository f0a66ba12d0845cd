import Foundation
import PushSync

/// One dedicated thread running jobs in order: where a pooled connection lives and where its blocking
/// libpq calls run, so they never hold a thread of Swift's cooperative pool.
package final class PostgresThread: Sendable {
    private typealias Job = @Sendable () -> Void

    /// Jobs not yet started; nil marks the end.
    private let jobs = PThreadLock<[Job?]>([])
    private let ready = DispatchSemaphore(value: 0)
    /// The thread's identity, recorded by the thread before it runs a job.
    private let owner = PThreadLock<pthread_t?>(nil)

    /// Starts the thread, named `name` (visible in debuggers and `top -H`).
    package init(name: String) {
        let thread = Thread { [jobs, ready, owner] in
            owner.withLock { $0 = pthread_self() }
            while true {
                ready.wait()
                guard let job = jobs.withLock({ $0.removeFirst() }) else { return }
                job()
            }
        }
        thread.name = name
        thread.start()
    }

    /// Stops the process unless called on this thread (by a job it runs).
    package func preconditionCurrent() {
        precondition(owner.withLock { $0 } == pthread_self(), "a PostgreSQL slot used off its own thread")
    }

    /// Runs `job` on the thread after the jobs handed over before it.
    package func execute(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        ready.signal()
    }

    /// Runs `body` on the thread and returns its result to the awaiting task. The thread lets go of `body`
    /// before the task resumes, so a caller may pass a closure it does not let escape
    /// (`withoutActuallyEscaping`).
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let held = Held(body)
        return try await withCheckedThrowingContinuation { continuation in
            execute {
                let result = held.runOnce()
                continuation.resume(with: result)
            }
        }
    }

    /// A job's body, released as soon as it has run.
    ///
    /// `@unchecked Sendable`: `body` is written by `init` and taken once by the job on the thread; the
    /// `jobs` lock (`execute` appends under it, the thread removes under it) orders the write before the take.
    private final class Held<T>: @unchecked Sendable {
        private var body: (@Sendable () throws -> T)?

        init(_ body: @escaping @Sendable () throws -> T) { self.body = body }

        func runOnce() -> Result<T, any Error> {
            guard let body else { preconditionFailure("a PostgreSQL job ran twice") }
            self.body = nil
            return Result { try body() }
        }
    }

    /// Ends the thread once the jobs already handed over have run.
    package func stop() {
        jobs.withLock { $0.append(nil) }
        ready.signal()
    }
}
