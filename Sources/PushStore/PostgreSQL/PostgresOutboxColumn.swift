import APNSCore
import Foundation

/// The columns an outbox row is read from, in SELECT order: the raw value is the offset, and `selectList` is
/// built from the same cases. What a row sends comes from `outbox_items i`, what changes from
/// `outbox_state s` (see `PostgresSchema.outboxSplit`).
enum PostgresOutboxColumn: Int32, PostgresColumn {
    case id, pushID, token, topic, pushType, priority, expiration, collapseID, apnsID, payload, environment
    case state, attempts, nextAttemptAt, lastStatus, lastReason, apnsUniqueID, createdAt, updatedAt, seq
    case channelID

    var expression: String {
        switch self {
        case .id: "i.id"
        case .pushID: "i.push_id"
        case .token: "i.token"
        case .topic: "i.topic"
        case .pushType: "i.push_type"
        case .priority: "i.priority"
        case .expiration: "i.expiration"
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
        case .seq: "i.seq"
        case .channelID: "i.channel_id"
        }
    }

    /// `SELECT <every column>` from both tables, to be followed by WHERE / ORDER BY.
    static let select = "SELECT \(selectList) FROM outbox_items i JOIN outbox_state s ON s.id = i.id"

    /// The item in `row`, from a statement selecting `selectList` first.
    static func item(_ row: PostgresRow) -> OutboxItem {
        // Every column was checked on the way in (`OutboxItem.validate`), so the typed values come back as is.
        var item = OutboxItem(
            id: row.string(Self.id), pushID: row.string(Self.pushID),
            token: DeviceToken(storedHex: row.string(Self.token)), topic: row.string(Self.topic),
            pushType: PushType(rawValue: row.string(Self.pushType)), payload: row.bytes(Self.payload),
            environment: APNSEnvironment(named: row.string(Self.environment)) ?? .production,
            priority: row.optionalInt(Self.priority).flatMap(Priority.init(rawValue:)),
            expiration: row.optionalInt(Self.expiration),
            collapseID: row.optionalString(Self.collapseID),
            apnsID: row.optionalString(Self.apnsID), now: row.date(Self.createdAt))
        item.state = OutboxState(rawValue: row.string(Self.state)) ?? .failed
        item.attempts = row.int(Self.attempts)
        item.nextAttemptAt = row.date(Self.nextAttemptAt)
        item.lastStatus = row.optionalInt(Self.lastStatus)
        item.lastReason = row.optionalString(Self.lastReason)
        item.apnsUniqueID = row.optionalString(Self.apnsUniqueID)
        item.updatedAt = row.date(Self.updatedAt)
        item.channelID = row.optionalString(Self.channelID).map(APNSChannelID.init(rawValue:))
        return item
    }
}
