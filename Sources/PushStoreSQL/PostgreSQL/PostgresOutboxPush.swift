import APNSCore
import Foundation
import PostgresDriver
import PushStore

/// A row of `outbox_pushes` as read (`PostgresSchema.outboxPushes`): what its notifications send, written
/// once, and the notifications themselves as positions `lo` … `lo + count - 1`. Every item built from one
/// push shares its push id, topic and payload (one copy each, not one per notification).
struct PostgresOutboxPush {
    var lo: Int64
    var count: Int
    var base: String
    var firstIndex: Int
    var pushID: String
    var topic: String
    var pushType: PushType
    var priority: Priority?
    var expiration: APNSExpiration
    var collapseID: String?
    var apnsIDColumn: String?
    var payload: [UInt8]
    var environment: APNSEnvironment
    var targets: [OutboxTarget]
    /// When its notifications were first due, in ms.
    var due: Int64
    var createdAt: Int64
    /// The last time one of its notifications was accepted without an outcome row, in ms: their `updatedAt`.
    var settledAt: Int64

    /// The columns `init(row:)` reads, in order, over `outbox_pushes p`.
    static let columns = """
        p.lo, p.count, p.base, p.first_index, p.push_id, p.topic, p.push_type, p.priority, p.expiration, p.collapse_id,
        p.apns_id, p.payload, p.environment, p.channels, p.targets, p.due, p.created_at, p.settled_at
        """

    /// `columns` of the pushes holding any of the notifications `$1[k]` … `$2[k]` (`seq`, two bigint
    /// arrays): the push starting last at or before each interval's start, and those starting inside it, in
    /// no order, a push once per interval (`PostgresOutboxPushes` sorts them and drops repeats). Neither
    /// sorted nor made distinct here, and each interval's first `lo` found first (`x`, materialized): else,
    /// under a claim's settings (no sort) and a generic plan, the planner walked the whole table in `lo`
    /// order, bounded above only, instead of reading each interval's few entries.
    static let coveringSQL = """
        WITH x AS MATERIALIZED (
            SELECT x.b, coalesce((SELECT max(q.lo) FROM outbox_pushes q WHERE q.lo <= x.a), x.a) AS start
            FROM unnest($1::bigint[], $2::bigint[]) AS x(a, b)
        )
        SELECT \(columns) FROM x JOIN outbox_pushes p ON p.lo >= x.start AND p.lo <= x.b
        """

    init(row: PostgresRow) {
        lo = row.int64(at: 0)
        count = row.int(at: 1)
        base = row.string(at: 2)
        firstIndex = row.int(at: 3)
        pushID = row.string(at: 4)
        topic = row.string(at: 5)
        pushType = PushType(rawValue: row.string(at: 6))
        priority = row.optionalInt(at: 7).flatMap(Priority.init(rawValue:))
        expiration = APNSExpiration(column: row.optionalInt(at: 8))
        collapseID = row.optionalString(at: 9)
        apnsIDColumn = row.optionalString(at: 10)
        payload = row.bytes(at: 11)
        environment = APNSEnvironment(named: row.string(at: 12)) ?? .production
        targets = OutboxTargetList.targets(row.string(at: 14), channels: row.bool(at: 13))
        due = row.int64(at: 15)
        createdAt = row.int64(at: 16)
        settledAt = row.int64(at: 17)
    }

    /// The last notification's `seq`.
    var hi: Int64 { lo + Int64(count) - 1 }

    /// The id of the notification at `seq` (one of this push's).
    func id(at seq: Int64) -> String {
        OutboxID.derived(from: base, index: firstIndex + Int(seq - lo)) ?? base
    }

    /// The notification at `seq` (one of this push's), as enqueued: queued, no attempt yet. The caller sets
    /// its state.
    func item(at seq: Int64) -> OutboxItem {
        let k = Int(seq - lo)
        let id = self.id(at: seq)
        var item = OutboxItem(
            id: id, pushID: pushID, target: k < targets.count ? targets[k] : .device(DeviceToken(storedHex: "")),
            topic: topic, pushType: pushType, payload: payload, environment: environment, priority: priority,
            expiration: expiration, collapseID: collapseID,
            apnsID: OutboxTargetList.apnsID(column: apnsIDColumn, id: id), now: Date(storeMillis: createdAt))
        item.nextAttemptAt = Date(storeMillis: due)
        return item
    }

    /// The notification at `seq` accepted at its first attempt without an outcome row: what a notification
    /// no outcome row and no live range names is.
    func acceptedItem(at seq: Int64) -> OutboxItem {
        var item = item(at: seq)
        item.state = .accepted
        item.attempts = 1
        item.lastStatus = 200
        item.updatedAt = Date(storeMillis: settledAt)
        return item
    }
}

/// The pushes read for a set of notifications, sorted by `lo`: finds the one holding a `seq`.
struct PostgresOutboxPushes {
    var pushes: [PostgresOutboxPush]

    /// The pushes holding any notification of the intervals `intervals` (`seq`, inclusive).
    init(covering intervals: [(Int64, Int64)], _ db: PostgresConnection) throws {
        guard !intervals.isEmpty else {
            pushes = []
            return
        }
        let rows = try db.query(
            PostgresOutboxPush.coveringSQL,
            [.integerArray(intervals.map { Optional($0.0) }), .integerArray(intervals.map { Optional($0.1) })])
        // By `lo`, each once; positions are sorted, not the pushes, and rows already read are not read again.
        var order: [(lo: Int64, row: Int)] = (0..<rows.count).map { (rows[$0].int64(at: 0), $0) }
        order.sort { $0.lo < $1.lo }
        var pushes: [PostgresOutboxPush] = []
        pushes.reserveCapacity(order.count)
        for (lo, row) in order where pushes.last?.lo != lo { pushes.append(PostgresOutboxPush(row: rows[row])) }
        self.pushes = pushes
    }

    init(_ pushes: [PostgresOutboxPush]) { self.pushes = pushes }

    /// The index in `pushes` of the push holding `seq`, or nil.
    func index(of seq: Int64) -> Int? {
        var low = 0
        var high = pushes.count
        while low < high {
            let middle = (low + high) / 2
            if pushes[middle].lo <= seq { low = middle + 1 } else { high = middle }
        }
        guard low > 0, pushes[low - 1].hi >= seq else { return nil }
        return low - 1
    }
}

/// A live range's `done` bitmap (`PostgresSchema.outboxPushes`): bit k of byte k / 8, from the lowest, is
/// set once notification `lo + k` left the range; nil: none did.
struct PostgresDoneBits {
    var bytes: [UInt8]?

    /// Whether position `k` left the range.
    func isDone(_ k: Int) -> Bool {
        guard let bytes, k / 8 < bytes.count else { return false }
        return bytes[k / 8] >> (k % 8) & 1 == 1
    }

    /// The positions of `0..<size` still in the range, in order.
    func pending(size: Int) -> [Int] {
        guard bytes != nil else { return Array(0..<size) }
        return (0..<size).filter { !isDone($0) }
    }

    /// The bits of positions `range` (a part of the range cut off at a split), renumbered from 0; nil when
    /// none is set.
    func slice(_ range: Range<Int>) -> [UInt8]? {
        guard bytes != nil else { return nil }
        var result = [UInt8](repeating: 0, count: (range.count + 7) / 8)
        var any = false
        for k in range where isDone(k) {
            let j = k - range.lowerBound
            result[j / 8] |= 1 << (j % 8)
            any = true
        }
        return any ? result : nil
    }
}
