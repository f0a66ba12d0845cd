import APNSCore
import Foundation
import PostgresDriver
import PushStore

/// The columns an outbox row is read from, in SELECT order: the raw value is the offset, and `selectList` is
/// built from the same cases. What a row sends comes from `outbox_items i`, what changes from
/// `outbox_state s` (see `PostgresSchema.outboxSplit`).
enum PostgresOutboxColumn: Int32, StoreColumn {
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

    /// The range `g` starting last at or before `seq` (an SQL expression), for a `LATERAL` join: the live range
    /// covering the row at `seq` when `g.hi >= seq` (ranges never overlap), looked up only while `condition`
    /// holds.
    static func rangeAtOrBefore(_ seq: String, if condition: String = "true") -> String {
        "(SELECT g.* FROM outbox_segments g WHERE \(condition) AND g.lo <= \(seq) ORDER BY g.lo DESC LIMIT 1) g"
    }

    /// `SELECT <every column>`, to be followed by WHERE / ORDER BY.
    static let select = "SELECT \(selectList) FROM \(from)"

    /// Each row of `outbox_items i` with its state `s`: its state row `r` when it has one, else the live range
    /// `g` covering it (`PostgresSchema.outboxSegments`), found through the range starting last at or before
    /// its `seq`. The view `outbox` reads rows the same way.
    static let from = """
        outbox_items i
        LEFT JOIN outbox_state r ON r.seq = i.seq
        LEFT JOIN LATERAL \(rangeAtOrBefore("i.seq", if: "r.seq IS NULL")) ON g.hi >= i.seq
        CROSS JOIN LATERAL (SELECT
            coalesce(r.state, CASE WHEN g.owner IS NULL THEN 'queued' ELSE 'in_flight' END) AS state,
            coalesce(r.attempts, g.claims) AS attempts, coalesce(r.next_attempt_at, g.due) AS next_attempt_at,
            r.last_status, r.last_reason, r.apns_unique_id, coalesce(r.updated_at, g.updated_at) AS updated_at,
            coalesce(r.owner, g.owner) AS owner, coalesce(r.lease_until, g.lease_until) AS lease_until) s
        """

    /// The item in `row`, from a statement selecting `selectList` first.
    static func item(_ row: PostgresRow) -> OutboxItem {
        // Every column was checked on the way in (`OutboxItem.validate`), so the typed values come back as is.
        var item = OutboxItem(
            id: row.string(Self.id), pushID: row.string(Self.pushID),
            target: OutboxTarget(tokenColumn: row.string(Self.token), channelColumn: row.optionalString(Self.channelID)),
            topic: row.string(Self.topic),
            pushType: PushType(rawValue: row.string(Self.pushType)), payload: row.bytes(Self.payload),
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
