import APNSCore
import Foundation

/// The columns an outbox row is read from (table `outbox`), in SELECT / RETURNING order: the raw value is
/// the offset, and `selectList` is built from the same cases.
enum PostgresOutboxColumn: Int32, PostgresColumn {
    case id, pushID, token, topic, pushType, priority, expiration, collapseID, apnsID, payload, environment
    case state, attempts, nextAttemptAt, lastStatus, lastReason, apnsUniqueID, createdAt, updatedAt, seq
    case channelID

    var expression: String {
        switch self {
        case .id: "o.id"
        case .pushID: "o.push_id"
        case .token: "o.token"
        case .topic: "o.topic"
        case .pushType: "o.push_type"
        case .priority: "o.priority"
        case .expiration: "o.expiration"
        case .collapseID: "o.collapse_id"
        case .apnsID: "o.apns_id"
        case .payload: "o.payload"
        case .environment: "o.environment"
        case .state: "o.state"
        case .attempts: "o.attempts"
        case .nextAttemptAt: "o.next_attempt_at"
        case .lastStatus: "o.last_status"
        case .lastReason: "o.last_reason"
        case .apnsUniqueID: "o.apns_unique_id"
        case .createdAt: "o.created_at"
        case .updatedAt: "o.updated_at"
        case .seq: "o.seq"
        case .channelID: "o.channel_id"
        }
    }

    /// `SELECT <every column> FROM outbox o`, to be followed by WHERE / ORDER BY.
    static let select = "SELECT \(selectList) FROM outbox o"

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
