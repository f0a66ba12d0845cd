import Foundation
import PostgresDriver
import PushStore

/// The drop rules' transaction on PostgreSQL, whose tables any number of instances share.
///
/// Each operation runs the drop rules in one transaction that takes one transaction-scoped advisory lock,
/// keyed by the set of users it is about (a report: its pair), with its first statement and in the same
/// round trip: two reports of one pair (the two phones of a drop, a repeated report) run one after the
/// other, whichever instance runs them. Operations on sets that only overlap (reports of A→B and C→B, a
/// cancel by A and a report of B→A) are settled by the rows: the primary key of `drop_engagements` backs
/// the rule "at most one pending drop per user" (the second pending drop waits for the first to commit,
/// then fails on the key), and a drop closes only while pending (the second close waits, then finds it
/// closed). Either way the transaction that came second runs again (a bounded number of times) on what is
/// now stored, and decides busy, a match or "already matched" from it.
extension PostgresDatabase: SQLDropDatabase {
    /// The advisory-lock class of drop operations (the second key is `hashtext` of their users, sorted and
    /// joined by a space, which no user id contains).
    static let dropLockClass: Int64 = 0x4452  // "DR"

    /// See `DropRepository.withDropTransaction`: one advisory lock for the set `users` (none for an expiry
    /// sweep; a drop closed meanwhile makes the transaction run again); `grouped` changes nothing here.
    func withDropTransaction<T: Sendable>(
        locking users: [String], grouped: Bool, _ body: @escaping @Sendable (inout any DropTransaction) throws -> T
    ) async throws -> T {
        try await runDropTransaction(locking: users) { tx in
            var transaction: any DropTransaction = tx
            return try body(&transaction)
        }
    }

    /// Runs `body` in a transaction holding the lock of `users`, again if a drop it closes was closed, or a
    /// user it engages was engaged, meanwhile by another writer (up to `attempts` runs).
    private func runDropTransaction<T: Sendable>(
        locking users: [String], attempts: Int = 5,
        _ body: @escaping @Sendable (inout PostgresDropTransaction) throws -> T
    ) async throws -> T {
        let lockKey = users.isEmpty ? nil : Array(Set(users)).sorted().joined(separator: " ")
        let clock = self.clock
        let dropLocks = self.dropLocks
        var attempt = 1
        while true {
            do {
                return try await transaction { db in
                    db.joinByLookup()
                    var tx = PostgresDropTransaction(db: db, clock: clock, lockKey: lockKey, locks: dropLocks)
                    let result = try body(&tx)
                    try tx.finish()
                    return result
                }
            } catch PushStoreError.invalidTransition(_, PostgresDropTransaction.notPending, _) where attempt < attempts {
                attempt += 1
            }
        }
    }

    func enqueue(_ items: [OutboxItem], _ db: PostgresSession) throws {
        try PostgresOutboxRepository.insert(items, clock: clock, db.connection)
    }
}
