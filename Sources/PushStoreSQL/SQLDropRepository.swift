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
        try await database.query(
            "SELECT \(DropColumn.selectList) FROM drops WHERE state = 'pending' ORDER BY created_at, id", [],
            row: DropRecord.init(row:))
    }

    /// See `DropRepository.drop(id:)`.
    func drop(id: String) async throws -> DropRecord? {
        try await database.onConnection { try Self.drop(id: id, $0) }
    }

    /// The drop with `id`, read on `db` (also inside other repositories' transactions).
    static func drop(id: String, _ db: some SQLSession) throws -> DropRecord? {
        try db.row(of: "drops", id: id, columns: DropColumn.selectList, DropRecord.init(row:))
    }

    /// See `DropRepository.readsUsersInDropTransaction`.
    var readsUsersInDropTransaction: Bool { database.readsUsersInDropTransaction }

    /// See `DropRepository.purgeEnded`.
    func purgeEnded(olderThan date: Date, limit: Int) async throws -> Int {
        try await database.purge(
            "drops", key: "id", olderThan: date, by: "coalesce(closed_at, matched_at)",
            where: "state <> 'pending' AND NOT EXISTS (SELECT 1 FROM mate_requests m WHERE m.drop_id = drops.id)",
            limit: limit)
    }
}

/// The drops of a SQLite database.
typealias SQLiteDropRepository = SQLDropRepository<SQLiteDatabase>
/// The drops of a PostgreSQL database.
typealias PostgresDropRepository = SQLDropRepository<PostgresDatabase>
