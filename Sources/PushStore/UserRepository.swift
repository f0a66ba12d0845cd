public import Foundation

/// Users and their profile cards.
public protocol UserRepository: Sendable {
    /// Creates the user or replaces their card (keeping `createdAt`); validates id and card first.
    func put(id: String, card: ProfileCard, now: Date) async throws -> UserRecord
    /// The user with `id`, or nil.
    func user(id: String) async throws -> UserRecord?
    /// The users among `ids` that exist, by id, in one read (a profile drop reads both of its users).
    func users(ids: [String]) async throws -> [String: UserRecord]
}

extension UserRepository {
    /// One `user(id:)` per id, for a store without a read of its own.
    public func users(ids: [String]) async throws -> [String: UserRecord] {
        var found: [String: UserRecord] = [:]
        for id in Set(ids) { found[id] = try await user(id: id) }
        return found
    }
}
