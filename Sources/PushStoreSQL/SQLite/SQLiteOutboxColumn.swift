import APNSCore
import Foundation
import PushStore
import SQLiteDriver

/// The columns an outbox row is read from, over `outbox_items i` joined with `outbox_state s`, in SELECT
/// order: the raw value is the offset, and `selectList` is built from the same cases.
enum SQLiteOutboxColumn: Int32, StoreColumn {
    case id, pushID, token, topic, pushType, priority, expiration, collapseID, apnsID, payload, environment
    case state, attempts, nextAttemptAt, lastStatus, lastReason, apnsUniqueID, createdAt, updatedAt
    case channelID

    var expression: String {
        switch self {
        case .id: "i.id"
        case .pushID: "i.push_id"
        case .token: "i.token"
        case .topic: "i.topic"
        case .pushType: "i.push_type"
        case .priority: "i.priority"
        case .expiration: "s.expiration"
        case .collapseID: "i.collapse_id"
        case .apnsID: "i.apns_id"
        case .payload: "i.payload"
        case .environment: "i.environment"
        case .state: "s.state"
        case .attempts: "s.attempts"
        case .nextAttemptAt: "s.next_attempt_at"
        case .lastStatus: "s.last_status"
        case .lastReason: "s.last_reason"
        case .apnsUniqueID: "s.apns_unique_id"
        case .createdAt: "i.created_at"
        case .updatedAt: "s.updated_at"
        case .channelID: "i.channel_id"
        }
    }

    /// The FROM clause the expressions refer to.
    static let join = "outbox_items i JOIN outbox_state s ON s.seq = i.seq"

    /// `SELECT <every column> FROM <join>`, to be followed by WHERE / ORDER BY.
    static let select = "SELECT \(selectList) FROM \(join)"

    /// The item in the current row of a statement selecting `selectList` first. With `previous` (the row
    /// before), push id, topic and payload are shared with it when equal, as along one fan-out push.
    static func item(_ row: SQLiteStatement, previous: OutboxItem? = nil) -> OutboxItem {
        let pushID: String
        let topic: String
        let payload: [UInt8]
        if let previous {
            pushID = row.string(Self.pushID, reusing: previous.pushID)
            topic = row.string(Self.topic, reusing: previous.topic)
            payload = row.blob(Self.payload, reusing: previous.payload)
        } else {
            pushID = row.string(Self.pushID)
            topic = row.string(Self.topic)
            payload = row.blob(Self.payload)
        }
        // Every column was checked on the way in (`OutboxItem.validate`), so the typed values come back as is.
        var item = OutboxItem(
            id: row.string(Self.id), pushID: pushID,
            target: OutboxTarget(tokenColumn: row.string(Self.token), channelColumn: row.optionalString(Self.channelID)), topic: topic,
            pushType: PushType(rawValue: row.string(Self.pushType)), payload: payload,
            environment: APNSEnvironment(named: row.string(Self.environment)) ?? .production,
            priority: row.optionalInt(Self.priority).flatMap(Priority.init(rawValue:)),
            expiration: APNSExpiration(column: row.optionalInt(Self.expiration)),
            collapseID: row.optionalString(Self.collapseID),
            apnsID: OutboxItem.apnsID(column: row.optionalString(Self.apnsID)), now: row.date(Self.createdAt))
        item.state = OutboxState(rawValue: row.string(Self.state)) ?? .failed
        item.attempts = row.int(Self.attempts)
        item.nextAttemptAt = row.date(Self.nextAttemptAt)
        item.lastStatus = row.optionalInt(Self.lastStatus)
        item.lastReason = OutboxItem.lastReason(column: row.optionalString(Self.lastReason))
        item.apnsUniqueID = row.optionalString(Self.apnsUniqueID)
        item.updatedAt = row.date(Self.updatedAt)
        return item
    }
}
