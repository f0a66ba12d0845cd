internal import CEvent
import Foundation
import PushSync
import PushTLS

/// One thread running a libevent base. Sockets, TLS and HTTP/2 sessions attached to a loop are touched
/// only from its thread; other threads hand work over with ``execute(_:)``. The loop is also a
/// `TaskExecutor` (see `EventLoop+TaskExecutor.swift`): tasks that prefer it run their jobs on its thread.
///
/// `@unchecked Sendable`: the base and loop-only fields are used on the loop thread (`dnsBase`, `withReadBuffer`
/// check it), `jobs` and `stopped` behind `PThreadLock`s, `threadID` set before the `started` semaphore; the
/// one cross-thread base call, `event_active` on the wake-up event, is thread-safe after `evthread_use_pthreads`.
public final class EventLoop: @unchecked Sendable {
    /// A name for logs and the thread.
    public let name: String
    /// The libevent base (`event_base *`), for the modules that build on this loop (PushHTTP1, PushProcess).
    package let base: OpaquePointer
    private var wakeEvent: OpaquePointer?
    private let jobs = PThreadLock(PendingJobs())
    private let stopped = PThreadLock(false)
    private let exited = DispatchSemaphore(value: 0)
    /// The loop thread's identity, cached when it starts (before `init` returns; never changed after):
    /// what ``inEventLoop`` compares with the caller's.
    private nonisolated(unsafe) var threadID: pthread_t?
    private let started = DispatchSemaphore(value: 0)
    private var dnsBaseHandle: OpaquePointer?
    /// The streams' shared read buffer (`withReadBuffer`), loop thread only.
    var readBuffer: UnsafeMutableRawBufferPointer?
    var readBufferInUse = false

    /// One piece of work queued for the loop thread: a closure, or a job of a task that prefers this
    /// loop as its executor. Both kinds share one queue, so they run in the order they were queued.
    enum Job {
        case closure(@Sendable () -> Void)
        case task(UnownedJob)
    }

    struct PendingJobs {
        var queue: [Job] = []
        /// The buffer of the last batch, emptied, given back so the next batch appends without allocating.
        var spare: [Job] = []
        var wakeRequested = false
        /// Set once the loop thread has run its last jobs: task jobs go to the global executor from then on.
        var finished = false
    }

    /// Starts a loop on a new thread; it runs until ``shutdown()``.
    public init(name: String = "push-io") {
        LibeventThreading.ensureInitialized()
        self.name = name
        // A precise clock for timers: libevent otherwise reads CLOCK_MONOTONIC_COARSE, whose 4 ms steps
        // (a 250 Hz kernel) made a 40 ms timer fire up to 4 ms late, and answers paced by timers (the
        // mock's latency) slower than asked. CLOCK_MONOTONIC through the vDSO costs a few nanoseconds.
        //
        // No cached time either: libevent otherwise reads the clock once per loop iteration, when the poll
        // returns, and measures every timer added while the iteration's callbacks run from then, and then
        // arms the kernel timer with that full delay only when the callbacks are done. A timer added after
        // 2 ms of work in an iteration fired 2 ms late: the mock answered every request that much later
        // than its latency (B4: 42 ms rounds for 40 ms).
        let config = event_config_new()
        event_config_set_flag(config, Int32(EVENT_BASE_FLAG_PRECISE_TIMER.rawValue | EVENT_BASE_FLAG_NO_CACHE_TIME.rawValue))
        let made = event_base_new_with_config(config)
        event_config_free(config)
        guard let base = made else { fatalError("event_base_new_with_config failed: out of memory") }
        self.base = base
        let context = Unmanaged.passUnretained(self).toOpaque()
        wakeEvent = event_new(
            base, -1, 0,
            { _, _, context in
                Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().runPendingJobs()
            }, context)
        let thread = Thread { [self] in self.run() }
        thread.name = name
        thread.stackSize = 4 << 20
        thread.start()
        started.wait()
    }

    deinit {
        if let wakeEvent { event_free(wakeEvent) }
        if let dnsBaseHandle { evdns_base_free(dnsBaseHandle, 0) }
        readBuffer?.deallocate()
        event_base_free(base)
    }

    private func run() {
        threadID = pthread_self()
        started.signal()
        event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY)
        runPendingJobs()
        // Task jobs queued from now on run on the global executor (a task that prefers a stopped loop
        // must still finish); closures are dropped, as before.
        let late = jobs.withLock { pending -> [Job] in
            pending.finished = true
            defer { pending.queue.removeAll() }
            return pending.queue
        }
        for case .task(let job) in late { globalConcurrentExecutor.enqueue(job) }
        exited.signal()
    }

    /// True when called on this loop's thread: one comparison of the caller's thread identity with the
    /// loop's cached one, cheap enough for every entry point of a loop-confined type.
    public var inEventLoop: Bool { threadID == pthread_self() }

    /// Stops the process unless called on this loop's thread. Every type confined to a loop calls it
    /// where it is entered (or holds its state in a ``LoopBound``, which calls it on each access), so a
    /// call from the wrong thread fails at once instead of racing.
    @inlinable
    public func preconditionInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(inEventLoop, "called off the thread of event loop '\(name)'", file: file, line: line)
    }

    /// Runs `job` on the loop thread soon, in submission order. Safe from any thread.
    public func execute(_ job: @escaping @Sendable () -> Void) {
        enqueue(.closure(job))
    }

    /// Queues `job` and wakes the loop when the queue was idle; false when the loop has finished (the
    /// job was not queued).
    @discardableResult
    func enqueue(_ job: Job) -> Bool {
        let (queued, needsWake) = jobs.withLock { pending -> (Bool, Bool) in
            if pending.finished { return (false, false) }
            pending.queue.append(job)
            if pending.wakeRequested { return (true, false) }
            pending.wakeRequested = true
            return (true, true)
        }
        if needsWake, let wakeEvent { event_active(wakeEvent, 0, 0) }
        return queued
    }

    /// Runs `job` right away when already on the loop thread, otherwise hands it over.
    public func executeOrRun(_ job: @escaping @Sendable () -> Void) {
        if inEventLoop { job() } else { execute(job) }
    }

    /// Runs `body` on the loop thread and returns its result to the caller.
    public func submit<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            execute { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs `body` on the loop thread and blocks the calling thread until it returns (runs it directly
    /// when already on the loop). For set-up and tear-down, never for per-request work.
    public func submitSync<T>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        if inEventLoop { return try body() }
        let done = DispatchSemaphore(value: 0)
        let result = ResultSlot<T>()
        execute {
            result.value = Result { try body() }
            done.signal()
        }
        done.wait()
        return try result.value!.get()
    }

    /// Runs the queued jobs. Jobs those queue in turn run too (a task resumed by a closure, a closure a
    /// task queues), for a few rounds, so that work handed back and forth on the loop thread completes in
    /// one iteration of the event loop instead of one iteration per hop.
    private func runPendingJobs() {
        let executor = asUnownedTaskExecutor()
        var batch: [Job] = []
        for _ in 0..<Self.jobRoundsPerWake {
            jobs.withLock { pending in
                pending.wakeRequested = false
                swap(&batch, &pending.spare)
                swap(&batch, &pending.queue)
            }
            if batch.isEmpty { return }
            for job in batch {
                switch job {
                case .closure(let closure): closure()
                case .task(let task): task.runSynchronously(on: executor)
                }
            }
            batch.removeAll(keepingCapacity: true)
            jobs.withLock { pending in
                if pending.spare.capacity < batch.capacity { swap(&pending.spare, &batch) }
            }
        }
    }

    /// How many batches one wake-up runs before the loop polls its sockets again.
    private static let jobRoundsPerWake = 4

    /// A lazily created asynchronous DNS resolver for this loop (loop thread only).
    var dnsBase: OpaquePointer? {
        preconditionInEventLoop()
        if dnsBaseHandle == nil { dnsBaseHandle = evdns_base_new(base, Int32(EVDNS_BASE_INITIALIZE_NAMESERVERS)) }
        return dnsBaseHandle
    }

    /// Stops the loop after the jobs already queued and waits for its thread to end. Idempotent.
    public func shutdown() {
        let first = stopped.withLock { stopped -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        if inEventLoop {
            event_base_loopbreak(base)
            return
        }
        execute { [self] in event_base_loopbreak(self.base) }
        exited.wait()
    }
}

/// `evthread_use_pthreads` must run once before any base exists.
enum LibeventThreading {
    private static let initialized: Bool = {
        OpenSSLRuntime.ensureInitialized()
        evthread_use_pthreads()
        signal(SIGPIPE, SIG_IGN)
        return true
    }()

    static func ensureInitialized() { _ = initialized }
}

/// A slot written on the loop thread before a semaphore signal and read after the wait.
/// `@unchecked Sendable`: the semaphore orders the one write (loop thread) before the one read (waiter).
private final class ResultSlot<T>: @unchecked Sendable {
    var value: Result<T, any Error>?
}
