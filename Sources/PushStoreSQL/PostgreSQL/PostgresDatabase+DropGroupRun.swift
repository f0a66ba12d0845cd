import Foundation
import PostgresDriver
import PushStore

/// A group of drop operations in one transaction: their locks tried together, those held elsewhere put back
/// for a later group, the others run each under its savepoint (`runEach`), and what the group did counted.
extension PostgresDatabase {
    /// Counts a group's transaction that began at `started` and just committed (`PostgresDropStatistics`).
    static func recordGroup(
        _ group: [PostgresDropGroups.Waiting], later: [PostgresDropGroups.Waiting], started: ContinuousClock.Instant,
        _ locks: PostgresDropLocks
    ) {
        let waited = { (operations: [PostgresDropGroups.Waiting]) in operations.reduce(Duration.zero) { $0 + (started - $1.queued) } }
        locks.recordGroup(
            ran: group.count - later.count, putBack: later.count, held: .now - started, queued: waited(group) - waited(later))
    }

    /// One transaction for `group`, each operation on its own: one alone as it would run ungrouped; several
    /// under one BEGIN, and one COMMIT. Their locks are tried in one statement (`groupLockSQL`), never waited
    /// for: the operations whose lock another transaction holds wait for a later group, and the others run,
    /// each under its savepoint. A group whose every lock is held elsewhere waits for its first operation's
    /// lock, holding none: a group never waits for a lock while holding one, so no two groups wait for each
    /// other's locks, and none holds its locks while waiting for a group that took one of its operations'
    /// first. Returns how to answer each caller of the operations that ran.
    static func runEach(
        _ group: [PostgresDropGroups.Waiting], _ db: PostgresConnection, _ groups: PostgresDropGroups,
        _ locks: PostgresDropLocks
    ) throws -> [@Sendable () -> Void] {
        guard group.count > 1 else { return try group.map { try $0.run(db, .alone) } }
        let keys = Array(Set(group.map(\.lockKey)))
        var held: Set<String> = []
        var later: [PostgresDropGroups.Waiting] = []
        let started = ContinuousClock.now
        let answers = try db.transaction { db in
            db.joinByLookup()
            held = Set(try db.query(groupLockSQL, [.integer(dropLockClass), .textArray(keys)]).map { $0.string(at: 0) })
            if held.isEmpty {
                let waiting = ContinuousClock.now
                try db.query(waitLockSQL, [.integer(dropLockClass), .text(group[0].lockKey)])
                locks.recordLockWait(ContinuousClock.now - waiting)
                held = [group[0].lockKey]
            }
            later = group.filter { !held.contains($0.lockKey) }
            return try group.filter { held.contains($0.lockKey) }.map { try $0.run(db, .savepoint) }
        }
        groups.putBack(later)
        locks.record(held.count)
        locks.recordCommit()
        recordGroup(group, later: later, started: started, locks)
        return answers
    }

    /// The keys in $2 whose locks (in class $1) this transaction took, of those it tried: one held by
    /// another transaction is not waited for.
    static let groupLockSQL = """
        SELECT k FROM unnest($2::text[]) AS k WHERE pg_try_advisory_xact_lock($1::integer, hashtext(k))
        """

    /// The locks of the keys in $2 (in class $1), each waited for, one after the other in the order of their
    /// lock ids. A group waits for these (the locks it put operations back for) holding no other lock of
    /// its own and no row it wrote (the statement comes first in its transaction), and every group that waits
    /// for more than one lock takes them in this one order: no two groups wait for each other. The groups
    /// that hold the locks waited for wait for no advisory lock themselves (theirs were tried, or taken
    /// in this order before).
    static let orderedLockSQL = """
        SELECT pg_advisory_xact_lock($1::integer, h)
        FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest($2::text[]) AS k ORDER BY h OFFSET 0) s
        """

    /// The lock of the key $2 (in class $1), waited for.
    static let waitLockSQL = "SELECT pg_advisory_xact_lock($1::integer, hashtext($2))"
}
