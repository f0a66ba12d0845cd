import APNSCore
import Foundation
import PushStore

/// The columns an `OutboxPushRecord` is read from (`outbox_pushes p`), in SELECT order, for both backends.
/// The small columns come first (SQLite reads a row up to the column asked for). The last three are
/// expressions of each backend's own (`selectList(settledAt:acceptedAttempts:due:)`): what its tables keep
/// elsewhere or not at all.
enum OutboxPushColumn: Int32, StoreColumn {
    case lo, count, base, firstIndex, createdAt, pushID, topic, pushType, priority, expiration, collapseID, apnsID
    case environment, channels, payload, targets, settledAt, acceptedAttempts, due

    var expression: String { "p.\(Self.snakeCase(String(describing: self)))" }

    /// Every column's expression in offset order, with the backend's expressions for the last three (and for
    /// the target list, when a read may leave it out: NULL reads as an empty list).
    static func selectList(settledAt: String, acceptedAttempts: String, due: String, targets: String = "p.targets") -> String {
        allCases.map { column in
            switch column {
            case .settledAt: settledAt
            case .acceptedAttempts: acceptedAttempts
            case .due: due
            case .targets: targets
            default: column.expression
            }
        }.joined(separator: ", ")
    }
}

/// One push as stored (`outbox_pushes`), read from either backend: the payload, headers and target list
/// written once, its notifications `seq` `lo` … `lo + count - 1`, notification k the position
/// `firstIndex + k` of `base` (`OutboxPushRun`). Items built from it share its payload, topic and push id
/// (no copy per notification).
struct OutboxPushRecord {
    var lo: Int64
    var count: Int
    var base: String
    var firstIndex: Int
    var createdAt: Date
    var pushID: String
    var topic: String
    var pushType: PushType
    var priority: Priority?
    var expiration: APNSExpiration
    var collapseID: String?
    var apnsIDColumn: String?
    var environment: APNSEnvironment
    var channels: Bool
    var payload: [UInt8]
    /// The `targets` column (`OutboxTargetList`): empty when read without it.
    var targetColumn: String
    /// When one of its notifications was last accepted without an outcome row: such a notification was last
    /// changed then.
    var settledAt: Date
    /// The attempts of its accepted notifications without an outcome row (the claim they were accepted under).
    var acceptedAttempts: Int
    /// When its notifications were first due, where the backend keeps it; nil: when it was enqueued.
    var due: Date?

    /// The push in `row` (`OutboxPushColumn`); the texts and payload of `previous` (the row before, often of
    /// the same fan-out) are reused when they are the same.
    init(_ row: some StoreRow, previous: OutboxPushRecord? = nil) {
        typealias Column = OutboxPushColumn
        lo = row.int64(Column.lo)
        count = row.int(Column.count)
        base = row.string(Column.base)
        firstIndex = row.int(Column.firstIndex)
        createdAt = row.date(Column.createdAt)
        pushID = previous.map { row.string(at: Column.pushID.rawValue, reusing: $0.pushID) } ?? row.string(Column.pushID)
        topic = previous.map { row.string(at: Column.topic.rawValue, reusing: $0.topic) } ?? row.string(Column.topic)
        pushType = PushType(rawValue: row.string(Column.pushType))
        priority = row.optionalInt(Column.priority).flatMap(Priority.init(rawValue:))
        expiration = APNSExpiration(column: row.optionalInt(Column.expiration))
        collapseID = row.optionalString(Column.collapseID)
        apnsIDColumn = row.optionalString(Column.apnsID)
        environment = APNSEnvironment(named: row.string(Column.environment)) ?? .production
        channels = row.int64(Column.channels) != 0
        payload = previous.map { row.bytes(at: Column.payload.rawValue, reusing: $0.payload) } ?? row.bytes(Column.payload)
        targetColumn = row.string(Column.targets)
        settledAt = row.date(Column.settledAt)
        acceptedAttempts = row.int(Column.acceptedAttempts)
        due = row.optionalDate(Column.due)
    }

    /// The last notification's `seq`.
    var hi: Int64 { lo + Int64(count) - 1 }

    /// The id of notification `k` (`OutboxPushRun.key(of:)` read backwards): a base that is not a UUID is
    /// the id of its only notification.
    func id(at k: Int) -> String {
        OutboxID.derived(from: base, index: firstIndex + k) ?? base
    }

    /// The targets of the notifications at `positions`, in position order (`OutboxTargetList`).
    func targets(at positions: Range<Int>) -> [OutboxTarget] {
        OutboxTargetList.targets(targetColumn, channels: channels, at: positions)
    }

    /// The target of notification `k` alone.
    func target(at k: Int) -> OutboxTarget {
        targets(at: k..<(k + 1)).first ?? missingTarget
    }

    /// What a position past the end of the list is sent to.
    var missingTarget: OutboxTarget {
        channels ? .channel(APNSChannelID(rawValue: "")) : .device(DeviceToken(storedHex: ""))
    }

    /// Notification `k` to `target`, as enqueued: queued, no attempt yet, due when the push was first due.
    /// The caller sets its state.
    func item(at k: Int, target: OutboxTarget) -> OutboxItem {
        let id = id(at: k)
        var item = OutboxItem(
            id: id, pushID: pushID, target: target, topic: topic, pushType: pushType, payload: payload,
            environment: environment, priority: priority, expiration: expiration, collapseID: collapseID,
            apnsID: OutboxTargetList.apnsID(column: apnsIDColumn, id: id), now: createdAt)
        if let due { item.nextAttemptAt = due }
        return item
    }

    /// Makes `item` (one of this push's) what a notification with no outcome row and no live range holding it
    /// is: accepted under `acceptedAttempts`, at `settledAt`.
    func settleAccepted(_ item: inout OutboxItem) {
        item.state = .accepted
        item.attempts = acceptedAttempts
        item.lastStatus = 200
        item.updatedAt = settledAt
    }

    /// Whether a notification of this push attempted `attempts` times before must end as `expired` at `second`
    /// (`OutboxItem.isExpired(at:)`).
    func isExpired(attempts: Int, second: Int64) -> Bool {
        guard let seconds = expiration.epochSeconds else { return false }
        if seconds == 0 { return attempts > 0 }
        return seconds < second
    }
}
