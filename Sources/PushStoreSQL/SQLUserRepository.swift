import Foundation
import PushStore

/// `UserRepository` on either SQL database: the `users` table.
struct SQLUserRepository<Database: SQLDatabase>: UserRepository {
    /// The database holding the table.
    let database: Database

    /// The columns of `users`, in SELECT order.
    enum Column: Int32, StoreColumn {
        case id, card, createdAt, updatedAt
    }

    private static func record(_ row: some StoreRow) -> UserRecord {
        UserRecord(
            id: row.string(Column.id), cardJSON: row.string(Column.card),
            createdAt: row.date(Column.createdAt), updatedAt: row.date(Column.updatedAt))
    }

    /// See `UserRepository.put(id:cardJSON:now:)`: one upsert that gives back the stored row
    /// (`SQLSession.upsert`).
    func put(id: String, cardJSON json: String, now: Date) async throws -> UserRecord {
        try StoreValidation.userID(id)
        return try await database.onConnection { db in
            let stored = try db.upsert(
                """
                INSERT INTO users (id, card, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
                ON CONFLICT (id) DO UPDATE SET card = excluded.card, updated_at = excluded.updated_at
                """, [.text(id), .text(json), .date(now)], returning: Column.selectList, row: Self.record,
                reread: { try Self.user(id: id, db) })
            guard let stored else { throw PushStoreError.notFound("user \(id)") }
            return stored
        }
    }

    /// See `UserRepository.user(id:)`.
    func user(id: String) async throws -> UserRecord? {
        try await database.onConnection { try Self.user(id: id, $0) }
    }

    /// See `UserRepository.users(ids:)`: one read for all of them (`SQLDatabase.groupedRead`): on
    /// PostgreSQL one statement, on SQLite one statement an id, grouped with the reads around it.
    func users(ids: [String]) async throws -> [String: UserRecord] {
        let ids = Array(Set(ids))
        return try await database.groupedRead { db in
            let rows = try db.query(
                { "SELECT \(Column.selectList) FROM users WHERE id \($0)" }, [], inList: ids, chunk: 1, row: Self.record)
            return Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    private static func user(id: String, _ db: some SQLSession) throws -> UserRecord? {
        try db.row(of: "users", id: id, columns: Column.selectList, record)
    }
}

/// The users of a SQLite database.
typealias SQLiteUserRepository = SQLUserRepository<SQLiteDatabase>
/// The users of a PostgreSQL database.
typealias PostgresUserRepository = SQLUserRepository<PostgresDatabase>
