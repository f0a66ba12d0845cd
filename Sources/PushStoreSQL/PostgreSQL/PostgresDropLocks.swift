import Synchronization

/// How many advisory locks the drop operations of one instance took (`PostgresDropTransaction`), and how
/// many of their transactions committed (one a group: `PostgresDropGroups`), for tests and benchmarks that
/// count what a report costs; with what the groups waited for and how long they held their locks
/// (`PostgresDropStatistics`).
final class PostgresDropLocks: Sendable {
    private let taken = Atomic<Int>(0)
    private let committed = Atomic<Int>(0)
    private let undone = Atomic<Int>(0)
    private let groupsRun = Atomic<Int>(0)
    private let operationsRun = Atomic<Int>(0)
    private let putBack = Atomic<Int>(0)
    private let lockWaits = Atomic<Int>(0)
    private let lockWaitNanos = Atomic<Int>(0)
    private let holdNanos = Atomic<Int>(0)
    private let queueNanos = Atomic<Int>(0)

    /// Groups whose batch found what another transaction changed meanwhile, and ran again with each
    /// operation on its own (`PostgresDatabase.runGroup`).
    var fallbacks: Int { undone.load(ordering: .relaxed) }

    /// Counts one group run again with each operation on its own.
    func recordFallback() { undone.add(1, ordering: .relaxed) }

    /// Transactions committed so far.
    var commits: Int { committed.load(ordering: .relaxed) }

    /// Counts one transaction committed.
    func recordCommit() { committed.add(1, ordering: .relaxed) }

    /// Locks taken so far.
    var count: Int { taken.load(ordering: .relaxed) }

    /// Counts one lock taken.
    func record(_ locks: Int = 1) { taken.add(locks, ordering: .relaxed) }

    /// Counts one group's transaction: the operations it ran (`ran`), those it put back for a later group
    /// (their locks held elsewhere), how long its transaction took from its first round trip to its commit
    /// (`held`: its locks are held for about that long), and the time its operations waited in the queue.
    func recordGroup(ran: Int, putBack later: Int, held: Duration, queued: Duration) {
        groupsRun.add(1, ordering: .relaxed)
        operationsRun.add(ran, ordering: .relaxed)
        putBack.add(later, ordering: .relaxed)
        holdNanos.add(Self.nanos(held), ordering: .relaxed)
        queueNanos.add(Self.nanos(queued), ordering: .relaxed)
    }

    /// Counts one wait for a lock held elsewhere, of `waited`.
    func recordLockWait(_ waited: Duration) {
        lockWaits.add(1, ordering: .relaxed)
        lockWaitNanos.add(Self.nanos(waited), ordering: .relaxed)
    }

    private static func nanos(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000)
    }

    /// What was counted so far.
    var statistics: PostgresDropStatistics {
        PostgresDropStatistics(
            groups: groupsRun.load(ordering: .relaxed), operations: operationsRun.load(ordering: .relaxed),
            putBacks: putBack.load(ordering: .relaxed), lockWaits: lockWaits.load(ordering: .relaxed),
            lockWaitSeconds: Double(lockWaitNanos.load(ordering: .relaxed)) / 1e9,
            holdSeconds: Double(holdNanos.load(ordering: .relaxed)) / 1e9,
            queueSeconds: Double(queueNanos.load(ordering: .relaxed)) / 1e9, locks: count, commits: commits, fallbacks: fallbacks,
            roundTrips: 0, statements: 0)
    }
}

/// What the grouped drop operations of one instance cost so far (`PostgresDatabase.dropStatistics`), for
/// benchmarks: differences of two readings say what the operations between them did.
public struct PostgresDropStatistics: Sendable {
    /// Group transactions run, and the operations they ran.
    public var groups: Int
    public var operations: Int
    /// Operations put back for a later group, their lock held by another transaction (one operation may
    /// be put back several times).
    public var putBacks: Int
    /// Waits for a lock held by another transaction (a group whose every lock was held elsewhere), and
    /// their time in all.
    public var lockWaits: Int
    public var lockWaitSeconds: Double
    /// The groups' transactions' time in all, from their first round trip to their commit: about how long
    /// they held their locks.
    public var holdSeconds: Double
    /// The time the operations that ran waited in the queue in all, from their arrival to the start of the
    /// group that ran them.
    public var queueSeconds: Double
    /// Advisory locks taken, transactions committed, groups run again operation by operation.
    public var locks: Int
    public var commits: Int
    public var fallbacks: Int
    /// Round trips and statements of the whole instance's pool (every repository's, not only the drops').
    public var roundTrips: Int
    public var statements: Int
}
