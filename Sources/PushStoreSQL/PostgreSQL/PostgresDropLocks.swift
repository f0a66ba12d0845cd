import Synchronization

/// How many advisory locks the drop operations of one instance took (`PostgresDropTransaction`), for
/// tests and benchmarks that count what a report costs.
final class PostgresDropLocks: Sendable {
    private let taken = Atomic<Int>(0)

    /// Locks taken so far.
    var count: Int { taken.load(ordering: .relaxed) }

    /// Counts one lock taken.
    func record() { taken.add(1, ordering: .relaxed) }
}
