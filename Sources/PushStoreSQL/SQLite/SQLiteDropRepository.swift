public import Foundation
public import PushStore
import SQLiteDriver

/// `DropRepository` on a `SQLiteDatabase`: the `drops` and `drop_engagements` tables. Every operation runs
/// in a write transaction (SQLite has one writer at a time), which is the lock the drop rules need; reports
/// and cancels that arrive together share one (group commit), each under its own savepoint.
public struct SQLiteDropRepository: DropRepository {
    /// The database holding the tables.
    public let database: SQLiteDatabase
    /// The repository over `database`.
    public init(database: SQLiteDatabase) { self.database = database }

    /// The columns of the table (`DropColumn`, shared by both SQL backends).
    typealias Column = DropColumn

    static let columns = Column.selectList

    static func record(_ row: SQLiteStatement) -> DropRecord {
        DropRecord(row: row)
    }

    /// See `DropRepository.withDropTransaction`: a write transaction (SQLite has one writer at a time, which
    /// is the lock the rules need, whatever `users`); grouped calls share one with the others that arrive
    /// together (group commit, `SQLiteDatabase.writeGrouped`), each under its own savepoint and in arrival order.
    public func withDropTransaction<T: Sendable>(
        locking users: [String], grouped: Bool, _ body: @escaping @Sendable (inout any DropTransaction) throws -> T
    ) async throws -> T {
        let run: @Sendable (SQLiteConnection) throws -> T = { db in
            var tx: any DropTransaction = SQLiteDropTransaction(db: db)
            return try body(&tx)
        }
        return grouped ? try await database.writeGrouped(run) : try await database.write(run)
    }

    /// See `DropRepository.pending`.
    public func pending() async throws -> [DropRecord] {
        try await database.perform { db in
            try db.query(
                "SELECT \(Self.columns) FROM drops WHERE state = 'pending' ORDER BY created_at, id",
                row: Self.record)
        }
    }

    /// See `DropRepository.drop(id:)`.
    public func drop(id: String) async throws -> DropRecord? {
        try await database.perform { try Self.drop(id: id, $0) }
    }

    /// See `DropRepository.purgeEnded`.
    public func purgeEnded(olderThan date: Date, limit: Int) async throws -> Int {
        try await database.write { db in
            try db.run(
                """
                DELETE FROM drops WHERE id IN (SELECT id FROM drops d
                    WHERE state <> 'pending' AND coalesce(closed_at, matched_at) < ?1
                      AND NOT EXISTS (SELECT 1 FROM mate_requests m WHERE m.drop_id = d.id)
                    LIMIT ?2)
                """, [.integer(date.storeMillis), .integer(Int64(max(0, limit)))])
        }
    }

    /// The drop with `id`, read on `db` (also inside other repositories' transactions).
    static func drop(id: String, _ db: SQLiteConnection) throws -> DropRecord? {
        try db.query(dropSQL, [.text(id)], row: record).first
    }

    private static let dropSQL = "SELECT \(columns) FROM drops WHERE id = ?1"
}
