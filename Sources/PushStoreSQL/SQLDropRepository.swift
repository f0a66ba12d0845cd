import Foundation
import PushStore

/// `DropRepository` on either SQL database: the `drops` and `drop_engagements` tables. The drop rules run
/// in the database's own drop transaction (`SQLDropDatabase.withDropTransaction`); the reads and the purge
/// are written once here.
struct SQLDropRepository<Database: SQLDropDatabase>: DropRepository {
    /// The database holding the tables.
    let database: Database

    /// See `DropRepository.withDropTransaction`.
    func withDropTransaction<T: Sendable>(
        locking users: [String], grouped: Bool, _ body: @escaping @Sendable (inout any DropTransaction) throws -> T
    ) async throws -> T {
        try await database.withDropTransaction(locking: users, grouped: grouped, body)
    }

    /// See `DropRepository.pending`.
    func pending() async throws -> [DropRecord] {
        try await database.onConnection { db in
            try db.query(
                "SELECT \(DropColumn.selectList) FROM drops WHERE state = 'pending' ORDER BY created_at, id", [],
                row: DropRecord.init(row:))
        }
    }

    /// See `DropRepository.drop(id:)`.
    func drop(id: String) async throws -> DropRecord? {
        try await database.onConnection { try Self.drop(id: id, $0) }
    }

    /// The drop with `id`, read on `db` (also inside other repositories' transactions).
    static func drop(id: String, _ db: some SQLSession) throws -> DropRecord? {
        try db.query("SELECT \(DropColumn.selectList) FROM drops WHERE id = ?1", [.text(id)], row: DropRecord.init(row:)).first
    }

    /// See `DropRepository.purgeEnded`.
    func purgeEnded(olderThan date: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await database.onConnection { db in
            try db.run(
                """
                DELETE FROM drops WHERE id IN (SELECT id FROM drops d
                    WHERE state <> 'pending' AND coalesce(closed_at, matched_at) < ?1
                      AND NOT EXISTS (SELECT 1 FROM mate_requests m WHERE m.drop_id = d.id)
                    LIMIT ?2)
                """, [.date(date), .integer(limit)])
        }
    }
}

/// The drops of a SQLite database.
typealias SQLiteDropRepository = SQLDropRepository<SQLiteDatabase>
/// The drops of a PostgreSQL database.
typealias PostgresDropRepository = SQLDropRepository<PostgresDatabase>
