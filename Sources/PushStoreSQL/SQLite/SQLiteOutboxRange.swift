import Foundation
import PushStore
import SQLiteDriver

/// SQLite's reads of a push (`OutboxPushRecord`): `outbox_pushes p` with its `outbox_settled t` row, which
/// keeps when its notifications without an outcome row were accepted and under how many attempts (none: at
/// its enqueue, at the first attempt). SQLite keeps no due time per push.
enum SQLitePushSelect {
    /// The record's columns, `settledAt`, `acceptedAttempts` and `due` from the settled row.
    static let columns = OutboxPushColumn.selectList(
        settledAt: "coalesce(t.settled_at, p.created_at)", acceptedAttempts: "coalesce(t.attempts, 1)", due: "NULL")

    /// `SELECT <every column> FROM <push and its settled row>`, to be followed by WHERE / ORDER BY.
    static let all = "SELECT \(columns) FROM outbox_pushes p LEFT JOIN outbox_settled t ON t.lo = p.lo"

    /// `all` with an empty target list: for reads that take the list from `OutboxTargetCache`.
    static let withoutTargets =
        "SELECT \(columns.replacingOccurrences(of: "p.targets", with: "''")) FROM outbox_pushes p "
        + "LEFT JOIN outbox_settled t ON t.lo = p.lo"
}

/// A range of pending notifications (`outbox_ranges`): `seq` `lo` … `hi`, due at `due`, claimed `claims`
/// times, in flight or not; `done` has bit `seq - lo` set for each notification that has left the range
/// (completed, or given an outcome row), `remaining` counts the others.
struct SQLiteOutboxRange {
    var lo: Int64
    var hi: Int64
    var due: Int64
    var claims: Int
    var inFlight: Bool
    var remaining: Int
    var done: [UInt8]
    var updatedAt: Int64

    /// The columns `init(_:at:)` reads, from `outbox_ranges`.
    static let columns = "lo, hi, due, claims, in_flight, remaining, done, updated_at"

    /// The range in `row`, its columns (`columns`) from offset `first` on.
    init(_ row: SQLiteStatement, at first: Int32 = 0) {
        lo = row.int64(at: first)
        hi = row.int64(at: first + 1)
        due = row.int64(at: first + 2)
        claims = row.int(at: first + 3)
        inFlight = row.int64(at: first + 4) != 0
        remaining = row.int(at: first + 5)
        done = row.isNull(at: first + 6) ? [] : row.blob(at: first + 6)
        updatedAt = row.int64(at: first + 7)
    }

    init(lo: Int64, hi: Int64, due: Int64, claims: Int, inFlight: Bool, remaining: Int, done: [UInt8], updatedAt: Int64) {
        (self.lo, self.hi, self.due, self.claims, self.inFlight) = (lo, hi, due, claims, inFlight)
        (self.remaining, self.done, self.updatedAt) = (remaining, done, updatedAt)
    }

    /// Whether notification `seq` (in the range) has left it.
    func isDone(_ seq: Int64) -> Bool {
        let offset = Int(seq - lo)
        guard offset >> 3 < done.count else { return false }
        return done[offset >> 3] & (1 << UInt8(offset & 7)) != 0
    }

    /// Marks notification `seq` as left, counting the range down.
    mutating func markDone(_ seq: Int64) {
        let offset = Int(seq - lo)
        let needed = Int(hi - lo) / 8 + 1
        if done.count < needed { done.append(contentsOf: repeatElement(0, count: needed - done.count)) }
        done[offset >> 3] |= 1 << UInt8(offset & 7)
        remaining -= 1
    }

    /// The pending notifications of the range within `from` … `to`.
    func pending(from: Int64, to: Int64) -> Int {
        let (first, last) = (max(from, lo), min(to, hi))
        guard first <= last else { return 0 }
        if done.isEmpty { return Int(last - first + 1) }
        var count = 0
        var seq = first
        while seq <= last {
            if !isDone(seq) { count += 1 }
            seq += 1
        }
        return count
    }

    /// The first pending notification's `seq`.
    var firstPending: Int64 {
        var seq = lo
        while seq < hi, isDone(seq) { seq += 1 }
        return seq
    }

    /// Cuts the range after its first `count` pending notifications: this one keeps them, the one returned
    /// (same due time, claims and state) holds the rest.
    mutating func split(keeping count: Int) -> SQLiteOutboxRange {
        var seen = 0
        var last = lo
        var seq = lo
        while seq <= hi {
            if !isDone(seq) {
                seen += 1
                if seen == count {
                    last = seq
                    break
                }
            }
            seq += 1
        }
        var rest = SQLiteOutboxRange(
            lo: last + 1, hi: hi, due: due, claims: claims, inFlight: inFlight, remaining: remaining - count, done: [],
            updatedAt: updatedAt)
        if !done.isEmpty {
            var next = last + 1
            while next <= hi {
                if isDone(next) {
                    rest.markDone(next)
                    rest.remaining += 1  // markDone counts down; `remaining` is already the rest's
                }
                next += 1
            }
            let kept = Int(last - lo) / 8 + 1
            if done.count > kept { done.removeLast(done.count - kept) }
        }
        hi = last
        remaining = count
        return rest
    }
}
