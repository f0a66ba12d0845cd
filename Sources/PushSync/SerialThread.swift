import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One dedicated thread that runs jobs in the order they are handed over: a `SerialExecutor`, so an actor
/// whose `unownedExecutor` is this thread's runs every job of its own here. Blocking calls such an actor
/// makes (a database commit, its `fdatasync`, a WAL checkpoint of several milliseconds) then hold this
/// thread, never one of Swift's concurrency pool, whose few threads (one per core) run the rest of the
/// program's async work.
///
/// The thread runs until `stop`, which its owner calls when done with it (an actor in its `deinit`: no job
/// of the actor can be queued then, since each holds the actor).
public final class SerialThread: SerialExecutor {
    private enum Job {
        case task(UnownedJob)
        case closure(@Sendable () -> Void)
        case stop
    }

    private struct Queue {
        var jobs: [Job] = []
        /// True while the thread waits (or is about to) for `wake`: the next job handed over signals it.
        var idle = false
        var stopped = false
    }

    private let queue = PThreadLock(Queue())
    private let wake = DispatchSemaphore(value: 0)
    /// The thread's identity, recorded by the thread before it runs a job.
    private let owner = PThreadLock<pthread_t?>(nil)
    /// The thread's name (visible in debuggers, `top -H` and `perf`; at most 15 bytes are kept).
    public let name: String

    /// Starts the thread, named `name`.
    public init(name: String) {
        self.name = name
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// True on this thread (in a job it runs), false on any other.
    public var isCurrent: Bool {
        guard let owner = owner.withLock({ $0 }) else { return false }
        return pthread_equal(owner, pthread_self()) != 0
    }

    /// Stops the process unless called on this thread: for state confined to it.
    public func preconditionCurrent(_ what: @autoclosure () -> String = "state of a SerialThread") {
        precondition(isCurrent, "\(what()) used off its thread \(name)")
    }

    /// Queues `job` (of an actor that runs on this thread) after the jobs handed over before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        hand(.task(UnownedJob(job)))
    }

    /// Runs `body` on the thread after the jobs handed over before it: for work of an actor on this thread
    /// started from outside it without a hop through the concurrency pool (a `Task` would start there), the
    /// body entering the actor with `assumeIsolated`, which this thread's `checkIsolated` lets through.
    public func execute(_ body: @escaping @Sendable () -> Void) {
        hand(.closure(body))
    }

    /// Called by `preconditionIsolated`/`assumeIsolated` when the runtime cannot tell the current executor:
    /// the isolation this executor gives is its thread's.
    public func checkIsolated() {
        preconditionCurrent("an actor isolated to a SerialThread")
    }

    /// Ends the thread once the jobs already handed over have run. No job may be handed over after.
    public func stop() {
        hand(.stop)
    }

    private func hand(_ job: Job) {
        let wakeUp = queue.withLock { queue -> Bool in
            precondition(!queue.stopped, "a job handed to the stopped SerialThread \(name)")
            queue.jobs.append(job)
            if case .stop = job { queue.stopped = true }
            guard queue.idle else { return false }
            queue.idle = false
            return true
        }
        if wakeUp { wake.signal() }
    }

    /// Gives the kernel the thread's name, from the thread itself: Foundation passes it on only when its
    /// `name` is set on the running thread, where it can race with `start` recording the thread's handle,
    /// and Glibc's module has no `pthread_setname_np`.
    private func nameInKernel() {
        #if os(Linux)
        guard let file = fopen("/proc/thread-self/comm", "w") else { return }
        fputs(String(decoding: name.utf8.prefix(15), as: UTF8.self), file)
        fclose(file)
        #endif
    }

    /// The thread: takes every queued job at once and runs them in order, waiting on `wake` when none is left.
    private func run() {
        nameInKernel()
        owner.withLock { $0 = pthread_self() }
        let executor = asUnownedSerialExecutor()
        var batch: [Job] = []
        while true {
            let empty = queue.withLock { queue -> Bool in
                guard !queue.jobs.isEmpty else {
                    queue.idle = true
                    return true
                }
                swap(&batch, &queue.jobs)
                return false
            }
            if empty {
                wake.wait()
                continue
            }
            for job in batch {
                switch job {
                case .task(let task): task.runSynchronously(on: executor)
                case .closure(let body): body()
                case .stop: return
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
