import Synchronization

/// How many advisory locks the drop operations of one instance took (`PostgresDropTransaction`), and how
/// many of their transactions committed (one a group: `PostgresDropGroups`), for tests and benchmarks that
/// count what a report costs.
final class PostgresDropLocks: Sendable {
    private let taken = Atomic<Int>(0)
    private let committed = Atomic<Int>(0)
    private let undone = Atomic<Int>(0)

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
}
