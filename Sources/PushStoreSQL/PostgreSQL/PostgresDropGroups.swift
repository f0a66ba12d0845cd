import PostgresDriver
import Synchronization

/// The grouped drop operations of one instance (reports and cancels) waiting for a transaction, and the
/// runners that take them (`PostgresDatabase.withDropTransaction`).
///
/// Up to `runnerLimit` runners at a time each take a connection, then every operation waiting then (up to
/// `groupLimit`) into one transaction: one COMMIT, and one WAL flush, for the whole group instead of one
/// each. An operation that finds a runner free and none waiting is a group of its own, run as it would be
/// alone; those that arrive while every runner is busy wait for the next group.
final class PostgresDropGroups: Sendable {
    /// How an operation runs on its group's connection.
    enum Mode {
        /// In a transaction of its own.
        case alone
        /// In the group's transaction, under a savepoint of its own, on what is stored.
        case savepoint
        /// In the group's transaction, on what the group read, its writes staged with the group's
        /// (`PostgresDropBatch`).
        case batch(PostgresDropBatch)
    }

    /// One operation waiting for a group.
    struct Waiting: Sendable {
        /// The users it is about (a report: its two), and the key of its advisory lock: they, sorted and
        /// joined by a space.
        let users: [String]
        let lockKey: String
        /// Runs the operation on the group's connection as `Mode` says. Returns how to answer its caller
        /// once its transaction committed; throws only what fails the whole transaction (a serialization
        /// failure or a deadlock, which runs the group again; a connection lost), or, in a batch,
        /// `PostgresDropBatch.Unbatchable` (it then runs under a savepoint of its own).
        let run: @Sendable (PostgresConnection, Mode) throws -> @Sendable () -> Void
        /// Answers its caller with the error that failed its group.
        let fail: @Sendable (any Error) -> Void
        /// When it was queued (for `PostgresDropStatistics.queueSeconds`).
        let queued = ContinuousClock.now
        /// True once a group put it back, its lock held by another transaction: the next group waits for
        /// that lock (`PostgresDatabase.runBatch`) instead of trying it again.
        var contended = false
    }

    private struct State {
        var waiting: [Waiting] = []
        var runners = 0
    }

    private let state = Mutex(State())
    /// The most operations in one transaction. Each that writes takes a subtransaction id (its savepoint),
    /// and PostgreSQL keeps up to 64 per transaction in shared memory: more would slow every snapshot.
    let groupLimit: Int
    /// The most groups running at a time (the rest of the pool is left to the other repositories).
    let runnerLimit: Int

    init(groupLimit: Int = 48, runnerLimit: Int) {
        self.groupLimit = groupLimit
        self.runnerLimit = max(1, runnerLimit)
    }

    /// Queues `operation`; true when the caller is to start a runner.
    func add(_ operation: Waiting) -> Bool {
        state.withLock { state in
            state.waiting.append(operation)
            guard state.runners < runnerLimit else { return false }
            state.runners += 1
            return true
        }
    }

    /// How many operations wait for a group.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// The operations of the next group (oldest first; none when none waits), and whether the caller is to
    /// start another runner. Those put back (`contended`, at the head of the queue) make a group of their
    /// own, which waits for their locks, so that the others are not held up by that wait: they go to
    /// another runner, started for them when one is free.
    func take() -> (group: [Waiting], startRunner: Bool) {
        state.withLock { state in
            let contended = state.waiting.prefix { $0.contended }.count
            let group = Array(state.waiting.prefix(min(contended > 0 ? contended : groupLimit, groupLimit)))
            state.waiting.removeFirst(group.count)
            guard contended > 0, !state.waiting.isEmpty, state.runners < runnerLimit else { return (group, false) }
            state.runners += 1
            return (group, true)
        }
    }

    /// Puts `operations` back at the head of the queue, for the next group (their locks were held
    /// elsewhere), marked contended: that group waits for their locks.
    func putBack(_ operations: [Waiting]) {
        guard !operations.isEmpty else { return }
        let contended = operations.map { operation in
            var operation = operation
            operation.contended = true
            return operation
        }
        state.withLock { $0.waiting.insert(contentsOf: contended, at: 0) }
    }

    /// True when operations wait for the runner that just ran a group; else the runner ends.
    func runAgain() -> Bool {
        state.withLock { state in
            if !state.waiting.isEmpty { return true }
            state.runners -= 1
            return false
        }
    }
}
