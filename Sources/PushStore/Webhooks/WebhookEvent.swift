public import Foundation
public import JSON

/// One outcome to report: written in the transaction of the state change that caused it, once per
/// subscribed endpoint, and delivered at least once under its `id` (receivers drop repeats by it).
public struct WebhookEvent: Sendable, Equatable {
    /// The event id (a time-ordered UUID), the same for every endpoint it goes to.
    public var id: String
    /// What happened.
    public var type: WebhookEventType
    /// When it happened.
    public var occurredAt: Date
    /// The facts of the event (ids, token, reason…), the `data` member of the delivered JSON.
    public var data: JSONValue

    /// An event with a fresh id.
    public init(type: WebhookEventType, occurredAt: Date, data: JSONValue, id: String = OutboxID.make()) {
        self.id = id
        self.type = type
        self.occurredAt = occurredAt.storeNormalized
        self.data = data
    }

    /// The JSON a receiver gets for this event: `{"id", "type", "created_at" (ms since 1970), "data"}`.
    public var json: JSONValue {
        .object([
            "id": .string(id), "type": .string(type.rawValue), "created_at": .int(occurredAt.storeMillis), "data": data,
        ])
    }

    /// The stored form: the serialized `json`.
    package var stored: [UInt8] { json.serialized() }
}
