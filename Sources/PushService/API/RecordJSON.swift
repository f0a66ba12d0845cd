import APNSCore
import Foundation
import JSON
import ProfileDrop
import PushStore

/// JSON forms of the stored records, as the API answers them.
enum RecordJSON {
    static func time(_ date: Date?) -> JSONValue {
        guard let date else { return .null }
        return .string(TimeText.iso8601(date))
    }

    static func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }

    static func optional(_ number: Int?) -> JSONValue { number.map { .int(Int64($0)) } ?? .null }

    static func card(_ card: ProfileCard) -> JSONValue {
        .object([
            "name": .string(card.name), "dog_name": .string(card.dogName), "breed": optional(card.breed),
            "age": optional(card.age), "bio": optional(card.bio), "image_url": optional(card.imageURL),
        ])
    }

    static func user(_ user: UserRecord) throws -> JSONValue {
        var members = card(try user.card).objectValue ?? [:]
        members["id"] = .string(user.id)
        members["created_at"] = time(user.createdAt)
        members["updated_at"] = time(user.updatedAt)
        return .object(members)
    }

    static func device(_ device: DeviceRecord) -> JSONValue {
        .object([
            "token": .string(device.token.hex), "topic": .string(device.topic), "user_id": .string(device.userID),
            "environment": .string(device.environment.name), "registered_at": time(device.registeredAt),
            "active": .bool(device.isActive), "invalidated_at": time(device.invalidatedAt),
            "invalid_reason": optional(device.invalidReason?.rawValue),
        ])
    }

    static func drop(_ drop: DropRecord) -> JSONValue {
        .object([
            "id": .string(drop.id), "initiator_id": .string(drop.initiatorID), "peer_id": .string(drop.peerID),
            "state": .string(drop.state.rawValue), "created_at": time(drop.createdAt),
            "expires_at": time(drop.expiresAt), "matched_at": time(drop.matchedAt),
        ])
    }

    static func mateRequest(_ request: MateRequestRecord) -> JSONValue {
        .object([
            "id": .string(request.id), "drop_id": .string(request.dropID), "sender_id": .string(request.senderID),
            "recipient_id": .string(request.recipientID), "state": .string(request.state.rawValue),
            "created_at": time(request.createdAt), "answered_at": time(request.answeredAt),
        ])
    }

    static func notification(_ item: OutboxItem) -> JSONValue {
        .object([
            "id": .string(item.id), "token": .string(item.target.deviceToken?.hex ?? ""), "topic": .string(item.topic),
            "environment": .string(item.environment.name), "state": .string(item.state.rawValue),
            "attempts": .int(Int64(item.attempts)), "status": optional(item.lastStatus),
            "reason": optional(item.lastReason?.rawValue), "apns_id": optional(item.apnsID?.rawValue),
            "apns_unique_id": optional(item.apnsUniqueID), "updated_at": time(item.updatedAt),
        ])
    }
}
