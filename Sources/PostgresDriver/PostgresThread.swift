import PushSync

/// One dedicated thread running jobs in order (a `SerialThread`): where a pooled connection lives and where
/// its blocking libpq calls run, so they never hold a thread of Swift's cooperative pool.
package final class PostgresThread: Sendable {
    private let thread: SerialThread

    /// Starts the thread, named `name` (visible in debuggers, `top -H` and `perf`).
    package init(name: String) {
        thread = SerialThread(name: name)
    }

    /// Stops the process unless called on this thread (by a job it runs).
    package func preconditionCurrent() {
        thread.preconditionCurrent("a PostgreSQL slot")
    }

    /// Runs `job` on the thread after the jobs handed over before it.
    package func execute(_ job: @escaping @Sendable () -> Void) {
        thread.execute(job)
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
    /// `SerialThread`'s queue lock (`execute` appends under it, the thread takes the jobs under it) orders
    /// the write before the take.
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
        thread.stop()
    }
}
