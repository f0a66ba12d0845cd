import Foundation
import PostgresDriver
import PushStore

/// A row of `outbox_pushes` as read (`PostgresSchema.outboxPushes`, `OutboxPushRecord`), its target list
/// decoded once: a claim builds every notification of the push it takes. Its notifications are addressed
/// by `seq`.
@dynamicMemberLookup
struct PostgresOutboxPush {
    var record: OutboxPushRecord
    var targets: [OutboxTarget]

    /// The columns `init(row:)` reads, in order, over `outbox_pushes p`: the table keeps each field, and a
    /// notification accepted without an outcome row was accepted at its first attempt.
    static let columns = OutboxPushColumn.selectList(settledAt: "p.settled_at", acceptedAttempts: "1", due: "p.due")

    /// `columns` of the pushes holding any of the notifications `$1[k]` … `$2[k]` (`seq`, two bigint
    /// arrays): the push starting last at or before each interval's start, and those starting inside it, in
    /// no order, a push once per interval (`PostgresOutboxPushes` sorts them and drops repeats); the target
    /// list NULL for the pushes starting at one of $3 (`lo`, a bigint array: those whose list the reader
    /// holds, `OutboxTargetCache`), which the server then neither reads whole nor sends. Neither sorted
    /// nor made distinct here, and each interval's first `lo` found first (`x`, materialized): else, under a
    /// claim's settings (no sort) and a generic plan, the planner walked the whole table in `lo` order,
    /// bounded above only, instead of reading each interval's few entries.
    static let coveringSQL = """
        WITH x AS MATERIALIZED (
            SELECT x.b, coalesce((SELECT max(q.lo) FROM outbox_pushes q WHERE q.lo <= x.a), x.a) AS start
            FROM unnest($1::bigint[], $2::bigint[]) AS x(a, b)
        )
        SELECT \(OutboxPushColumn.selectList(
            settledAt: "p.settled_at", acceptedAttempts: "1", due: "p.due",
            targets: "CASE WHEN p.lo = ANY ($3::bigint[]) THEN NULL ELSE p.targets END"))
        FROM x JOIN outbox_pushes p ON p.lo >= x.start AND p.lo <= x.b
        """

    init(row: PostgresRow) {
        record = OutboxPushRecord(row)
        targets = record.targets(at: 0..<record.count)
        record.targetColumn = ""  // decoded: the text is not kept beside the list
    }

    /// The push `record` (read without its list) sending to `targets`.
    init(record: OutboxPushRecord, targets: [OutboxTarget]) {
        self.record = record
        self.targets = targets
    }

    subscript<Value>(dynamicMember field: KeyPath<OutboxPushRecord, Value>) -> Value { record[keyPath: field] }

    /// The id of the notification at `seq` (one of this push's).
    func id(at seq: Int64) -> String { record.id(at: Int(seq - record.lo)) }

    /// The notification at `seq` (one of this push's), as enqueued: queued, no attempt yet. The caller sets
    /// its state.
    func item(at seq: Int64) -> OutboxItem {
        let k = Int(seq - record.lo)
        return record.item(at: k, target: k < targets.count ? targets[k] : record.missingTarget)
    }

    /// The notification at `seq` accepted at its first attempt without an outcome row: what a notification
    /// no outcome row and no live range names is.
    func acceptedItem(at seq: Int64) -> OutboxItem {
        var item = item(at: seq)
        record.settleAccepted(&item)
        return item
    }
}

/// The pushes read for a set of notifications, sorted by `lo`: finds the one holding a `seq`.
struct PostgresOutboxPushes {
    var pushes: [PostgresOutboxPush]

    /// The read of the pushes holding any notification of the intervals `intervals` (`seq`, inclusive, not
    /// empty), for a caller that sends it in a round trip of its own making: the statement, leaving out the
    /// target lists `cache` holds, and those lists (`cached`, by `lo`), which `init(rows:cached:cache:_:)` takes.
    static func covering(_ intervals: [(Int64, Int64)], cache: OutboxTargetCache)
        -> (sql: String, parameters: [PostgresValue], cached: [Int64: OutboxTargetCache.Entry])
    {
        let cached = cache.entries
        return (
            PostgresOutboxPush.coveringSQL,
            [
                .integerArray(intervals.map { Optional($0.0) }), .integerArray(intervals.map { Optional($0.1) }),
                .integerArray(cached.keys.map { Optional($0) }),
            ], cached
        )
    }

    /// The pushes in `rows`, the answer to a `covering` read, their target lists taken from `cached` (that
    /// read's) where the server left them out, else decoded and kept in `cache`.
    init(rows: PostgresRows, cached: [Int64: OutboxTargetCache.Entry], cache: OutboxTargetCache, _ db: PostgresConnection) throws {
        // By `lo`, each once; positions are sorted, not the pushes, and rows already read are not read again.
        var order: [(lo: Int64, row: Int)] = (0..<rows.count).map { (rows[$0].int64(at: 0), $0) }
        order.sort { $0.lo < $1.lo }
        var pushes: [PostgresOutboxPush] = []
        pushes.reserveCapacity(order.count)
        let targetsColumn = OutboxPushColumn.targets.rawValue
        for (lo, row) in order where pushes.last?.lo != lo {
            var record = OutboxPushRecord(rows[row])
            let key = OutboxTargetCache.Key(record)
            if rows[row].isNull(at: targetsColumn), let entry = cached[lo], entry.key == key {
                pushes.append(PostgresOutboxPush(record: record, targets: entry.targets))
                continue
            }
            if rows[row].isNull(at: targetsColumn) {
                // The list left out for a cached push of another key (`lo` taken again after a purge): read it.
                record.targetColumn =
                    try db.query("SELECT targets FROM outbox_pushes WHERE lo = $1", [.integer(lo)]).map { $0.string(at: 0) }.first ?? ""
            }
            let targets = record.targets(at: 0..<record.count)
            record.targetColumn = ""  // decoded: the text is not kept beside the list
            cache.store(lo: lo, key: key, targets: targets)
            pushes.append(PostgresOutboxPush(record: record, targets: targets))
        }
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
