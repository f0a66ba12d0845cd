public import Foundation
import PostgresDriver
public import PushStore

/// `DropRepository` on a `PostgresDatabase`: the `drops` and `drop_engagements` tables, shared by any
/// number of instances.
///
/// Each operation runs the drop rules in one transaction that first takes a transaction-scoped advisory lock
/// per user it is about (in user-id order, so two operations never wait on each other in a cycle): the
/// lock the rules need, held until commit, whichever instance runs the operation. The primary key of
/// `drop_engagements` backs the rule "at most one pending drop per user". A drop can also be closed by an
/// operation about its other user (or by `expireDue`); the write that comes second finds it no longer
/// pending, and the whole transaction runs again (a bounded number of times) on what is now stored.
public struct PostgresDropRepository: DropRepository {
    /// The database holding the tables.
    public let database: PostgresDatabase
    /// The repository over `database`.
    public init(database: PostgresDatabase) { self.database = database }

    /// The columns of the table (`DropColumn`, shared by both SQL backends).
    typealias Column = DropColumn

    static let columns = Column.selectList

    static func record(_ row: PostgresRow) -> DropRecord {
        DropRecord(row: row)
    }

    /// The advisory-lock class of drop users (the second key is `hashtext(user_id)`).
    static let lockClass: Int64 = 0x4452  // "DR"

    /// Runs `body` in a transaction holding the locks of `users`, again if a drop it closes was closed
    /// meanwhile by another writer (up to `attempts` runs).
    private func run<T: Sendable>(
        locking users: [String], attempts: Int = 5,
        _ body: @escaping @Sendable (inout PostgresDropTransaction) throws -> T
    ) async throws -> T {
        let ordered = Array(Set(users)).sorted()
        var attempt = 1
        while true {
            do {
                return try await database.transaction { db in
                    db.joinByLookup()
                    // One statement takes the locks one by one in the array's order (sorted, so that two
                    // operations on the same users never wait for each other in opposite orders).
                    if !ordered.isEmpty {
                        try db.query(
                            "SELECT pg_advisory_xact_lock($1::integer, hashtext(u)) FROM unnest($2::text[]) AS u",
                            [.integer(Self.lockClass), .textArray(ordered)])
                    }
                    var tx = PostgresDropTransaction(db: db)
                    return try body(&tx)
                }
            } catch PushStoreError.invalidTransition(_, PostgresDropTransaction.notPending, _) where attempt < attempts {
                attempt += 1
            }
        }
    }

    /// See `DropRepository.withDropTransaction`: every call takes the advisory locks of `users` (none for an
    /// expiry sweep; a drop closed meanwhile makes the transaction run again); `grouped` changes nothing here.
    public func withDropTransaction<T: Sendable>(
        locking users: [String], grouped: Bool, _ body: @escaping @Sendable (inout any DropTransaction) throws -> T
    ) async throws -> T {
        try await run(locking: users) { tx in
            var transaction: any DropTransaction = tx
            return try body(&transaction)
        }
    }

    /// See `DropRepository.pending`.
    public func pending() async throws -> [DropRecord] {
        try await database.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM drops WHERE state = 'pending' ORDER BY created_at, id").map(Self.record)
        }
    }

    /// See `DropRepository.drop(id:)`.
    public func drop(id: String) async throws -> DropRecord? {
        try await database.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM drops WHERE id = $1", [.text(id)]).map(Self.record).first
        }
    }

    /// See `DropRepository.purgeEnded`.
    public func purgeEnded(olderThan date: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await database.withConnection { db in
            try db.run(
                """
                DELETE FROM drops WHERE id IN (SELECT id FROM drops d
                    WHERE state <> 'pending' AND coalesce(closed_at, matched_at) < $1
                      AND NOT EXISTS (SELECT 1 FROM mate_requests m WHERE m.drop_id = d.id)
                    LIMIT $2)
                """, [.integer(date.storeMillis), .integer(Int64(limit))])
        }
    }
}
