import Foundation

/// Users and their profile cards.
public protocol UserRepository: Sendable {
    /// Creates the user or replaces their card (keeping `createdAt`); validates id and card first.
    func put(id: String, card: ProfileCard, now: Date) async throws -> UserRecord
    /// The user with `id`, or nil.
    func user(id: String) async throws -> UserRecord?
}

/// `UserRepository` over a `PushStore`.
public struct SQLiteUserRepository: UserRepository {
    /// The store every call goes to.
    public let store: PushStore
    /// Wraps `store`.
    public init(store: PushStore) { self.store = store }
    /// See `UserRepository.put(id:card:now:)`.
    public func put(id: String, card: ProfileCard, now: Date) async throws -> UserRecord {
        try await store.putUser(id: id, card: card, now: now)
    }
    /// See `UserRepository.user(id:)`.
    public func user(id: String) async throws -> UserRecord? { try await store.user(id: id) }
}
