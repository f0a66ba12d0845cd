public import Foundation

/// Users and their profile cards, stored encoded (the profile-drop domain encodes and checks them).
public protocol UserRepository: Sendable {
    /// Creates the user or replaces their card (keeping `createdAt`); validates the id first.
    func put(id: String, cardJSON: String, now: Date) async throws -> UserRecord
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
