import APNSCore
import Foundation
import PushStore

/// The columns an outbox row is read from, over `outbox_items i` (what a row sends) and its state `s` (what
/// claims and completions change), in SELECT order. A backend's enum (`PostgresOutboxColumn`) lists them, with
/// what only it selects and where its state comes from; the expressions and the row-to-item rule are written
/// here. (SQLite stores a push once and builds its notifications from the push row: `SQLiteOutboxPush`.)
protocol OutboxColumn: StoreColumn {
    static var id: Self { get }
    static var pushID: Self { get }
    static var token: Self { get }
    static var channelID: Self { get }
    static var topic: Self { get }
    static var pushType: Self { get }
    static var priority: Self { get }
    static var expiration: Self { get }
    static var collapseID: Self { get }
    static var apnsID: Self { get }
    static var payload: Self { get }
    static var environment: Self { get }
    static var createdAt: Self { get }
    static var state: Self { get }
    static var attempts: Self { get }
    static var nextAttemptAt: Self { get }
    static var lastStatus: Self { get }
    static var lastReason: Self { get }
    static var apnsUniqueID: Self { get }
    static var updatedAt: Self { get }

    /// The columns read from the state `s`; every other one is read from the item `i`.
    static var stateColumns: [Self] { get }
}

extension OutboxColumn {
    /// What claims and completions change: read from the state `s` on both backends.
    static var stateColumns: [Self] {
        [.state, .attempts, .nextAttemptAt, .lastStatus, .lastReason, .apnsUniqueID, .updatedAt]
    }

    /// The column of the case's name in snake_case, from the state `s` or the item `i` (`s.next_attempt_at`).
    var expression: String {
        let table = Self.stateColumns.contains { $0.rawValue == rawValue } ? "s" : "i"
        return "\(table).\(Self.snakeCase(String(describing: self)))"
    }

    /// The item in `row`, from a statement selecting `selectList` first.
    static func item(_ row: some StoreRow) -> OutboxItem { item(row, previous: nil) }

    /// The item in `row`. With `previous` (the row before), push id, topic and payload are shared with it
    /// when equal, as along one fan-out push.
    static func item(_ row: some StoreRow, previous: OutboxItem?) -> OutboxItem {
        let pushID = previous.map { row.string(at: Self.pushID.rawValue, reusing: $0.pushID) } ?? row.string(Self.pushID)
        let topic = previous.map { row.string(at: Self.topic.rawValue, reusing: $0.topic) } ?? row.string(Self.topic)
        let payload = previous.map { row.bytes(at: Self.payload.rawValue, reusing: $0.payload) } ?? row.bytes(Self.payload)
        // Every column was checked on the way in (`OutboxItem.validate`), so the typed values come back as is.
        var item = OutboxItem(
            id: row.string(Self.id), pushID: pushID,
            target: OutboxTarget(tokenColumn: row.string(Self.token), channelColumn: row.optionalString(Self.channelID)),
            topic: topic, pushType: PushType(rawValue: row.string(Self.pushType)), payload: payload,
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
