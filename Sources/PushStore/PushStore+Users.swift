import Foundation

extension PushStore {
    /// Stores `card` for user `id`, creating the user or replacing the card; `createdAt` is kept.
    public func putUser(id: String, card: ProfileCard, now: Date) throws -> UserRecord {
        try StoreValidation.userID(id)
        try card.validate()
        let json = card.encodedJSON()
        let millis = now.storeMillis
        try connection.run("""
            INSERT INTO users (id, card, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
            ON CONFLICT (id) DO UPDATE SET card = excluded.card, updated_at = excluded.updated_at
            """, [.text(id), .text(json), .integer(millis)])
        guard let user = try user(id: id) else { throw PushStoreError.notFound("user \(id)") }
        return user
    }

    /// The user with `id`, or nil.
    public func user(id: String) throws -> UserRecord? {
        try connection.query("SELECT id, card, created_at, updated_at FROM users WHERE id = ?1", [.text(id)]) {
            UserRecord(id: $0.string(at: 0), card: try ProfileCard.decode(json: $0.string(at: 1)),
                       createdAt: Date(storeMillis: $0.int64(at: 2)), updatedAt: Date(storeMillis: $0.int64(at: 3)))
        }.first
    }
}
