public import Foundation
public import PushStore

extension UserRepository {
    /// Creates the user or replaces their card (keeping `createdAt`): the id and the card are checked
    /// (`ProfileCard.validate`), then the card is stored encoded (`ProfileCard.encodedJSON`).
    public func put(id: String, card: ProfileCard, now: Date) async throws -> UserRecord {
        try StoreValidation.userID(id)
        try card.validate()
        return try await put(id: id, cardJSON: card.encodedJSON(), now: now)
    }
}

extension UserRecord {
    /// The user's profile card, decoded from what the store keeps; throws when the stored text is not a card.
    public var card: ProfileCard {
        get throws { try ProfileCard.decode(json: cardJSON) }
    }
}
