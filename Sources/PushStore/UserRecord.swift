public import Foundation

/// A stored user and their profile card.
public struct UserRecord: Sendable, Equatable {
    /// The user id (1–64 characters of `[A-Za-z0-9_.-]`).
    public var id: String
    /// The user's profile card.
    public var card: ProfileCard
    /// When the user was first stored.
    public var createdAt: Date
    /// When the card last changed.
    public var updatedAt: Date

    /// Creates a record.
    public init(id: String, card: ProfileCard, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.card = card
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
