import Foundation
import PushStore
import SQLiteDriver

extension SQLiteOutboxRepository {
    /// The notification `id`, read back: its push found by the id's base and position (`OutboxPushRun.key`).
    static func item(id: String, _ db: SQLiteConnection) throws -> OutboxItem? {
        guard let (push, k) = try push(of: id, db) else { return nil }
        return try notifications(of: push, positions: k..<(k + 1), db).first
    }

    /// The push holding notification `id` and its position in it, or nil when none does.
    static func push(of id: String, _ db: SQLiteConnection) throws -> (OutboxPushRecord, Int)? {
        let (base, index) = OutboxPushRun.key(of: id)
        guard
            let push = try db.query(
                "\(SQLitePushSelect.all) WHERE p.base = ?1 AND p.first_index <= ?2 ORDER BY p.first_index DESC LIMIT 1",
                [.text(base), .integer(Int64(index))], row: { OutboxPushRecord($0) }
            ).first, index < push.firstIndex + push.count
        else { return nil }
        let k = index - push.firstIndex
        return push.id(at: k) == id ? (push, k) : nil
    }

    /// The `seq` of notification `id`, or nil when no push holds it.
    static func seq(of id: String, _ db: SQLiteConnection) throws -> Int64? {
        let (base, index) = OutboxPushRun.key(of: id)
        let found = try db.query(
            "SELECT lo, first_index, count FROM outbox_pushes WHERE base = ?1 AND first_index <= ?2 ORDER BY first_index DESC LIMIT 1",
            [.text(base), .integer(Int64(index))]
        ) { (lo: $0.int64(at: 0), first: $0.int(at: 1), count: $0.int(at: 2)) }.first
        guard let found, index < found.first + found.count else { return nil }
        return found.lo + Int64(index - found.first)
    }

    /// An outcome row (`outbox_state`) as read.
    struct Outcome {
        var state: OutboxState
        var attempts: Int
        var nextAttemptAt: Int64
        var lastStatus: Int?
        var lastReason: OutboxReason?
        var apnsUniqueID: String?
        var updatedAt: Int64

        /// The columns `init` reads, after `seq`.
        static let columns = "state, attempts, next_attempt_at, last_status, last_reason, apns_unique_id, updated_at"

        init(_ row: SQLiteStatement, at first: Int32) {
            state = OutboxState(rawValue: row.string(at: first)) ?? .failed
            attempts = row.int(at: first + 1)
            nextAttemptAt = row.int64(at: first + 2)
            lastStatus = row.optionalInt(at: first + 3)
            lastReason = OutboxItem.lastReason(column: row.optionalString(at: first + 4))
            apnsUniqueID = row.optionalString(at: first + 5)
            updatedAt = row.int64(at: first + 6)
        }

        func apply(to item: inout OutboxItem) {
            item.state = state
            item.attempts = attempts
            item.nextAttemptAt = Date(storeMillis: nextAttemptAt)
            item.lastStatus = lastStatus
            item.lastReason = lastReason
            item.apnsUniqueID = apnsUniqueID
            item.updatedAt = Date(storeMillis: updatedAt)
        }
    }

    /// The notifications of `push` at `positions` (all by default), each in its state: its outcome row's when
    /// it has one, else queued or in flight while a live range holds it, else accepted (at the push's
    /// `settled_at`).
    static func notifications(of push: OutboxPushRecord, positions: Range<Int>? = nil, _ db: SQLiteConnection) throws
        -> [OutboxItem]
    {
        let positions = positions ?? 0..<push.count
        guard !positions.isEmpty else { return [] }
        let (first, last) = (push.lo + Int64(positions.lowerBound), push.lo + Int64(positions.upperBound - 1))
        var outcomes: [Int64: Outcome] = [:]
        for (seq, outcome) in try db.query(
            "SELECT seq, \(Outcome.columns) FROM outbox_state WHERE seq BETWEEN ?1 AND ?2", [.integer(first), .integer(last)],
            row: { ($0.int64(at: 0), Outcome($0, at: 1)) })
        {
            outcomes[seq] = outcome
        }
        let ranges = try Self.ranges(from: first, to: last, db)
        let targets = push.targets(at: positions)
        var items: [OutboxItem] = []
        items.reserveCapacity(positions.count)
        var rangeIndex = 0
        for k in positions {
            let seq = push.lo + Int64(k)
            var item = push.item(at: k, target: targets[k - positions.lowerBound])
            if let outcome = outcomes[seq] {
                outcome.apply(to: &item)
            } else {
                while rangeIndex < ranges.count, ranges[rangeIndex].hi < seq { rangeIndex += 1 }
                if rangeIndex < ranges.count, ranges[rangeIndex].lo <= seq, !ranges[rangeIndex].isDone(seq) {
                    let range = ranges[rangeIndex]
                    item.state = range.inFlight ? .inFlight : .queued
                    item.attempts = range.claims
                    item.nextAttemptAt = Date(storeMillis: range.due)
                    item.updatedAt = range.claims == 0 ? push.createdAt : Date(storeMillis: range.updatedAt)
                } else {
                    push.settleAccepted(&item)
                }
            }
            items.append(item)
        }
        return items
    }

    /// The live ranges covering any of `first` … `last`, in order.
    static func ranges(from first: Int64, to last: Int64, _ db: SQLiteConnection) throws -> [SQLiteOutboxRange] {
        try db.query(
            """
            SELECT \(SQLiteOutboxRange.columns) FROM outbox_ranges
            WHERE lo BETWEEN coalesce((SELECT lo FROM outbox_ranges WHERE lo <= ?1 ORDER BY lo DESC LIMIT 1), ?1) AND ?2
            ORDER BY lo
            """, [.integer(first), .integer(last)]
        ) { SQLiteOutboxRange($0) }.filter { $0.hi >= first }
    }

    /// The pushes holding any of `first` … `last`, in order; without their target lists (`targetColumn` empty)
    /// unless `withTargets`.
    static func pushes(from first: Int64, to last: Int64, withTargets: Bool = true, _ db: SQLiteConnection) throws
        -> [OutboxPushRecord]
    {
        var previous: OutboxPushRecord?
        return try db.query(
            """
            \(withTargets ? SQLitePushSelect.all : SQLitePushSelect.withoutTargets)
            WHERE p.lo BETWEEN coalesce((SELECT lo FROM outbox_pushes WHERE lo <= ?1 ORDER BY lo DESC LIMIT 1), ?1) AND ?2
            ORDER BY p.lo
            """, [.integer(first), .integer(last)]
        ) { row in
            let push = OutboxPushRecord(row, previous: previous)
            previous = push
            return push
        }.filter { $0.hi >= first }
    }
}

extension SQLiteOutboxRepository {
    /// Every target of `push` (read without its list), through `cache`.
    static func targets(of push: OutboxPushRecord, cache: OutboxTargetCache, _ db: SQLiteConnection) throws -> [OutboxTarget] {
        try cache.targets(of: push) {
            var stored = push
            stored.targetColumn =
                try db.query("SELECT targets FROM outbox_pushes WHERE lo = ?1", [.integer(push.lo)]) { $0.string(at: 0) }.first ?? ""
            return stored.targets(at: 0..<push.count)
        }
    }
}
