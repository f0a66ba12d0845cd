public import Foundation
public import PushStore
import SQLiteDriver

/// `UserRepository` on a `SQLiteDatabase`: the `users` table.
public struct SQLiteUserRepository: UserRepository {
    /// The database holding the table.
    public let database: SQLiteDatabase
    /// The repository over `database`.
    public init(database: SQLiteDatabase) { self.database = database }

    /// See `UserRepository.put(id:card:now:)`.
    public func put(id: String, card: ProfileCard, now: Date) async throws -> UserRecord {
        try StoreValidation.userID(id)
        try card.validate()
        let json = card.encodedJSON()
        return try await database.perform { db in
            try db.run(
                """
                INSERT INTO users (id, card, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
                ON CONFLICT (id) DO UPDATE SET card = excluded.card, updated_at = excluded.updated_at
                """, [.text(id), .text(json), .integer(now.storeMillis)])
            guard let user = try Self.user(id: id, db) else { throw PushStoreError.notFound("user \(id)") }
            return user
        }
    }

    /// See `UserRepository.user(id:)`.
    public func user(id: String) async throws -> UserRecord? {
        try await database.perform { try Self.user(id: id, $0) }
    }

    /// See `UserRepository.users(ids:)`: one read for all of them, grouped with the reads around it
    /// (`SQLiteDatabase.readGrouped`).
    public func users(ids: [String]) async throws -> [String: UserRecord] {
        try await database.readGrouped { db in
            var found: [String: UserRecord] = [:]
            for id in Set(ids) { found[id] = try Self.user(id: id, db) }
            return found
        }
    }

    private static func user(id: String, _ db: SQLiteConnection) throws -> UserRecord? {
        try db.query("SELECT id, card, created_at, updated_at FROM users WHERE id = ?1", [.text(id)]) {
            UserRecord(
                id: $0.string(at: 0), card: try ProfileCard.decode(json: $0.string(at: 1)),
                createdAt: Date(storeMillis: $0.int64(at: 2)), updatedAt: Date(storeMillis: $0.int64(at: 3)))
        }.first
    }
}
