public import Foundation

/// Users and their profile cards.
public protocol UserRepository: Sendable {
    /// Creates the user or replaces their card (keeping `createdAt`); validates id and card first.
    func put(id: String, card: ProfileCard, now: Date) async throws -> UserRecord
    /// The user with `id`, or nil.
    func user(id: String) async throws -> UserRecord?
}
