/// The loop as a task executor (SE-0417): a task that prefers it runs its jobs on the loop thread, in the
/// loop's job queue, so a caller whose work per step is short (a loop that sends notifications and counts
/// their outcomes, say) shares the thread of the connections it uses: the continuation the loop resumes
/// when an answer arrives costs no hand-over to another thread and no wake-up of one.
///
/// ```swift
/// await withTaskExecutorPreference(loop) {
///     // nonisolated async code here runs on the loop thread
/// }
/// ```
///
/// Work that blocks, or runs long, holds up every socket on the loop: keep it off this executor. Jobs
/// enqueued after the loop has stopped run on the global concurrent executor.
extension EventLoop: TaskExecutor {
    /// Queues a job of a task that prefers this loop; it runs on the loop thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        if !enqueue(.task(unowned)) { globalConcurrentExecutor.enqueue(unowned) }
    }
}
