public import Foundation
import PostgresDriver
public import PushStore

/// `UserRepository` on a `PostgresDatabase`: the `users` table.
public struct PostgresUserRepository: UserRepository {
    /// The database holding the table.
    public let database: PostgresDatabase
    /// The repository over `database`.
    public init(database: PostgresDatabase) { self.database = database }

    /// The columns of `users`, in SELECT order.
    enum Column: Int32, StoreColumn {
        case id, card, createdAt, updatedAt

        var expression: String {
            switch self {
            case .id: "id"
            case .card: "card"
            case .createdAt: "created_at"
            case .updatedAt: "updated_at"
            }
        }
    }

    private static func record(_ row: PostgresRow) throws -> UserRecord {
        UserRecord(
            id: row.string(Column.id), card: try ProfileCard.decode(json: row.string(Column.card)),
            createdAt: row.date(Column.createdAt), updatedAt: row.date(Column.updatedAt))
    }

    /// See `UserRepository.put(id:card:now:)`: one upsert that returns the stored row.
    public func put(id: String, card: ProfileCard, now: Date) async throws -> UserRecord {
        try StoreValidation.userID(id)
        try card.validate()
        let json = card.encodedJSON()
        return try await database.withConnection { db in
            let rows = try db.query(
                """
                INSERT INTO users (id, card, created_at, updated_at) VALUES ($1, $2, $3, $3)
                ON CONFLICT (id) DO UPDATE SET card = excluded.card, updated_at = excluded.updated_at
                RETURNING \(Column.selectList)
                """, [.text(id), .text(json), .integer(now.storeMillis)])
            guard rows.count == 1 else { throw PushStoreError.notFound("user \(id)") }
            return try Self.record(rows[0])
        }
    }

    /// See `UserRepository.user(id:)`.
    public func user(id: String) async throws -> UserRecord? {
        try await users(ids: [id])[id]
    }

    /// See `UserRepository.users(ids:)`: one statement for all of them.
    public func users(ids: [String]) async throws -> [String: UserRecord] {
        try await database.withConnection { db in
            let rows = try db.query(
                "SELECT \(Column.selectList) FROM users WHERE id = ANY($1::text[])", [.textArray(Array(Set(ids)))])
            var found: [String: UserRecord] = [:]
            for user in try rows.map(Self.record) { found[user.id] = user }
            return found
        }
    }
}
