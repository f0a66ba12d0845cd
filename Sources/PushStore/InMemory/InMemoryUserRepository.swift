public import Foundation

/// `UserRepository` in memory, with the same rules as the SQLite one (for tests).
public actor InMemoryUserRepository: UserRepository {
    private var users: [String: UserRecord] = [:]

    /// An empty repository.
    public init() {}

    /// See `UserRepository.put(id:cardJSON:now:)`.
    public func put(id: String, cardJSON: String, now: Date) throws -> UserRecord {
        try StoreValidation.userID(id)
        let now = now.storeNormalized
        let record = UserRecord(id: id, cardJSON: cardJSON, createdAt: users[id]?.createdAt ?? now, updatedAt: now)
        users[id] = record
        return record
    }

    /// See `UserRepository.user(id:)`.
    public func user(id: String) -> UserRecord? { users[id] }

    /// See `UserRepository.users(ids:)`.
    public func users(ids: [String]) -> [String: UserRecord] {
        var found: [String: UserRecord] = [:]
        for id in ids { found[id] = users[id] }
        return found
    }
}
