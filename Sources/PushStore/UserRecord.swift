public import Foundation

/// A stored user and their profile card, kept as the text its owner encoded it in (ProfileDrop's
/// `ProfileCard`): the store never reads inside it.
public struct UserRecord: Sendable, Equatable {
    /// The user id (1–64 characters of `[A-Za-z0-9_.-]`).
    public var id: String
    /// The user's profile card, encoded (JSON text).
    public var cardJSON: String
    /// When the user was first stored.
    public var createdAt: Date
    /// When the card last changed.
    public var updatedAt: Date

    /// Creates a record.
    public init(id: String, cardJSON: String, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.cardJSON = cardJSON
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
