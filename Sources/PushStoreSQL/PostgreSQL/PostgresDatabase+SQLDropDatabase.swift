import Foundation
import PostgresDriver
import PushStore

/// The drop rules' transaction on PostgreSQL, whose tables any number of instances share.
///
/// Each operation runs the drop rules in one transaction that first takes a transaction-scoped advisory lock
/// per user it is about (in user-id order, so two operations never wait on each other in a cycle): the
/// lock the rules need, held until commit, whichever instance runs the operation. The primary key of
/// `drop_engagements` backs the rule "at most one pending drop per user". A drop can also be closed by an
/// operation about its other user (or by `expireDue`); the write that comes second finds it no longer
/// pending, and the whole transaction runs again (a bounded number of times) on what is now stored.
extension PostgresDatabase: SQLDropDatabase {
    /// The advisory-lock class of drop users (the second key is `hashtext(user_id)`).
    static let dropLockClass: Int64 = 0x4452  // "DR"

    /// See `DropRepository.withDropTransaction`: every call takes the advisory locks of `users` (none for an
    /// expiry sweep; a drop closed meanwhile makes the transaction run again); `grouped` changes nothing here.
    func withDropTransaction<T: Sendable>(
        locking users: [String], grouped: Bool, _ body: @escaping @Sendable (inout any DropTransaction) throws -> T
    ) async throws -> T {
        try await runDropTransaction(locking: users) { tx in
            var transaction: any DropTransaction = tx
            return try body(&transaction)
        }
    }

    /// Runs `body` in a transaction holding the locks of `users`, again if a drop it closes was closed
    /// meanwhile by another writer (up to `attempts` runs).
    private func runDropTransaction<T: Sendable>(
        locking users: [String], attempts: Int = 5,
        _ body: @escaping @Sendable (inout PostgresDropTransaction) throws -> T
    ) async throws -> T {
        let ordered = Array(Set(users)).sorted()
        let clock = self.clock
        var attempt = 1
        while true {
            do {
                return try await transaction { db in
                    db.joinByLookup()
                    // One statement takes the locks one by one in the array's order (sorted, so that two
                    // operations on the same users never wait for each other in opposite orders), then reads
                    // the database's clock (`PostgresDropTransaction.now(given:)`).
                    var decidedAt: Date?
                    if !ordered.isEmpty || clock == .database {
                        let locked = try db.query(
                            """
                            SELECT count(l.*), (extract(epoch from clock_timestamp()) * 1000)::bigint
                            FROM (SELECT pg_advisory_xact_lock($1::integer, hashtext(u)) FROM unnest($2::text[]) AS u) l
                            """, [.integer(Self.dropLockClass), .textArray(ordered)])
                        if clock == .database { decidedAt = Date(storeMillis: locked[0].int64(at: 1)) }
                    }
                    var tx = PostgresDropTransaction(db: db, clock: clock, decidedAt: decidedAt)
                    return try body(&tx)
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
