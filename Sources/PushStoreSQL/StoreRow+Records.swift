import APNSCore
import Foundation
import PushStore

// The column lists and row-to-record rules of the tables added with webhooks, channels and Live Activity
// tokens, shared by both SQL backends (see `StoreRow`).

/// The columns of `webhook_endpoints`, in SELECT (and INSERT) order.
enum WebhookEndpointColumn: Int32, StoreColumn {
    case id, url, events, secret, source, createdAt
    var expression: String {
        switch self {
        case .id: "id"
        case .url: "url"
        case .events: "events"
        case .secret: "secret"
        case .source: "source"
        case .createdAt: "created_at"
        }
    }
}

/// The columns of `webhook_events`, in SELECT order.
enum WebhookEventColumn: Int32, StoreColumn {
    case eventID, endpointID, type, body, state, attempts, nextAttemptAt, lastStatus, lastError, createdAt, updatedAt
    var expression: String {
        switch self {
        case .eventID: "event_id"
        case .endpointID: "endpoint_id"
        case .type: "type"
        case .body: "body"
        case .state: "state"
        case .attempts: "attempts"
        case .nextAttemptAt: "next_attempt_at"
        case .lastStatus: "last_status"
        case .lastError: "last_error"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        }
    }
}

extension WebhookEndpoint {
    /// The endpoint in a row selecting `WebhookEndpointColumn.selectList`.
    init(row: some StoreRow) {
        self.init(
            id: row.string(WebhookEndpointColumn.id), url: row.string(WebhookEndpointColumn.url),
            events: WebhookEndpoint.events(stored: row.string(WebhookEndpointColumn.events)),
            secret: row.string(WebhookEndpointColumn.secret),
            source: WebhookEndpoint.Source(rawValue: row.string(WebhookEndpointColumn.source)) ?? .api,
            createdAt: row.date(WebhookEndpointColumn.createdAt))
    }
}

extension WebhookDelivery {
    /// The delivery in a row selecting `WebhookEventColumn.selectList`.
    init(row: some StoreRow) {
        self.init(
            eventID: row.string(WebhookEventColumn.eventID), endpointID: row.string(WebhookEventColumn.endpointID),
            type: WebhookEventType(rawValue: row.string(WebhookEventColumn.type)) ?? .notificationRejected,
            body: row.bytes(WebhookEventColumn.body),
            state: WebhookDeliveryState(rawValue: row.string(WebhookEventColumn.state)) ?? .pending,
            attempts: row.int(WebhookEventColumn.attempts), nextAttemptAt: row.date(WebhookEventColumn.nextAttemptAt),
            lastStatus: row.optionalInt(WebhookEventColumn.lastStatus),
            lastError: row.optionalString(WebhookEventColumn.lastError),
            createdAt: row.date(WebhookEventColumn.createdAt), updatedAt: row.date(WebhookEventColumn.updatedAt))
    }
}

extension ChannelRecord {
    /// `SELECT … FROM channels` in the order `init(row:)` reads.
    static let selectSQL = "SELECT id, topic, environment, storage_policy, created_at FROM channels"

    /// The channel in a row of `selectSQL`.
    init(row: some StoreRow) {
        self.init(
            id: APNSChannelID(rawValue: row.string(at: 0)), topic: row.string(at: 1),
            environment: APNSEnvironment(named: row.string(at: 2)) ?? .production,
            storagePolicy: APNSMessageStoragePolicy(rawValue: Int(row.int64(at: 3))) ?? .noMessageStored,
            createdAt: Date(storeMillis: row.int64(at: 4)))
    }
}

extension ActivityTokenRecord {
    /// `SELECT … FROM activity_tokens` in the order `init(row:)` reads.
    static let selectSQL = """
        SELECT token, topic, user_id, environment, kind, attributes_type, activity_id, registered_at, retired_at
        FROM activity_tokens
        """

    /// The token in a row of `selectSQL`.
    init(row: some StoreRow) {
        self.init(
            token: DeviceToken(storedHex: row.string(at: 0)), topic: row.string(at: 1), userID: row.string(at: 2),
            environment: APNSEnvironment(named: row.string(at: 3)) ?? .production,
            kind: ActivityTokenRecord.kind(
                name: row.string(at: 4), attributesType: row.optionalString(at: 5), activityID: row.optionalString(at: 6)),
            registeredAt: Date(storeMillis: row.int64(at: 7)), retiredAt: row.optionalInt64(at: 8).map(Date.init(storeMillis:)))
    }
}
