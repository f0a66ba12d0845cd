import APNSCore
import Foundation
import PushStore
import SQLiteDriver

/// The columns a push row (`outbox_pushes p`) is read from, in SELECT order; `settledAt` from `outbox_settled`.
enum SQLitePushColumn: Int32, StoreColumn {
    case lo, count, base, firstIndex, createdAt, pushID, topic, pushType, priority, expiration, collapseID, apnsID
    case environment, channels, payload, targets, settledAt, acceptedAttempts

    var expression: String {
        switch self {
        case .settledAt: "coalesce(t.settled_at, p.created_at)"
        case .acceptedAttempts: "coalesce(t.attempts, 1)"
        default: "p.\(Self.snakeCase(String(describing: self)))"
        }
    }

    /// `SELECT <every column> FROM <push and its settled row>`, to be followed by WHERE / ORDER BY.
    static let select = "SELECT \(selectList) FROM outbox_pushes p LEFT JOIN outbox_settled t ON t.lo = p.lo"

    /// `select` with an empty target list: for reads that take the list from `SQLiteTargetCache`.
    static let selectWithoutTargets =
        "SELECT \(selectList.replacingOccurrences(of: "p.targets", with: "''")) FROM outbox_pushes p "
        + "LEFT JOIN outbox_settled t ON t.lo = p.lo"
}

/// One push as stored (`outbox_pushes`): its notifications are `seq` `lo` … `lo + count - 1`, notification k
/// the position `firstIndex + k` of `base` (`OutboxPushRun`). Items built from it share its payload, topic
/// and push id (no copy per notification).
struct SQLiteOutboxPush {
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
    var targetColumn: String
    /// When one of its notifications last ended: an accepted notification without an outcome row was last
    /// changed then.
    var settledAt: Date
    /// The attempts of its accepted notifications without an outcome row (the claim they were accepted under).
    var acceptedAttempts: Int

    /// The push in `row` (`SQLitePushColumn.select`).
    init(_ row: SQLiteStatement, previous: SQLiteOutboxPush? = nil) {
        lo = row.int64(SQLitePushColumn.lo)
        count = row.int(SQLitePushColumn.count)
        base = row.string(SQLitePushColumn.base)
        firstIndex = row.int(SQLitePushColumn.firstIndex)
        createdAt = row.date(SQLitePushColumn.createdAt)
        pushID = previous.map { row.string(at: SQLitePushColumn.pushID.rawValue, reusing: $0.pushID) } ?? row.string(SQLitePushColumn.pushID)
        topic = previous.map { row.string(at: SQLitePushColumn.topic.rawValue, reusing: $0.topic) } ?? row.string(SQLitePushColumn.topic)
        pushType = PushType(rawValue: row.string(SQLitePushColumn.pushType))
        priority = row.optionalInt(SQLitePushColumn.priority).flatMap(Priority.init(rawValue:))
        expiration = APNSExpiration(column: row.optionalInt(SQLitePushColumn.expiration))
        collapseID = row.optionalString(SQLitePushColumn.collapseID)
        apnsIDColumn = row.optionalString(SQLitePushColumn.apnsID)
        environment = APNSEnvironment(named: row.string(SQLitePushColumn.environment)) ?? .production
        channels = row.int64(SQLitePushColumn.channels) != 0
        payload =
            previous.map { row.blob(at: SQLitePushColumn.payload.rawValue, reusing: $0.payload) } ?? row.blob(at: SQLitePushColumn.payload.rawValue)
        targetColumn = row.string(SQLitePushColumn.targets)
        settledAt = row.date(SQLitePushColumn.settledAt)
        acceptedAttempts = row.int(SQLitePushColumn.acceptedAttempts)
    }

    /// The last notification's `seq`.
    var hi: Int64 { lo + Int64(count) - 1 }

    /// The id of notification `k` (`OutboxPushRun.key(of:)` read backwards): a base that is not a UUID is
    /// the id of its only notification.
    func id(at k: Int) -> String {
        OutboxID.derived(from: base, index: firstIndex + k) ?? base
    }

    /// The targets of the notifications at `positions`, in position order: only those are decoded (a claim
    /// of a few hundred notifications of a large push does not decode the whole list).
    func targets(at positions: Range<Int>) -> [OutboxTarget] {
        var targets: [OutboxTarget] = []
        targets.reserveCapacity(positions.count)
        var column = targetColumn
        column.withUTF8 { bytes in
            var part = 0
            var start = 0
            var index = 0
            while part < positions.upperBound {
                while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
                if part >= positions.lowerBound {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    targets.append(channels ? .channel(APNSChannelID(rawValue: text)) : .device(DeviceToken(storedHex: text)))
                }
                part += 1
                index += 1
                start = index
                if start > bytes.count { break }
            }
        }
        return targets
    }

    /// The target of notification `k` alone.
    func target(at k: Int) -> OutboxTarget {
        targets(at: k..<(k + 1)).first ?? (channels ? .channel(APNSChannelID(rawValue: "")) : .device(DeviceToken(storedHex: "")))
    }

    /// Notification `k` to `target`, as enqueued (queued, no attempt yet).
    func item(at k: Int, target: OutboxTarget) -> OutboxItem {
        let id = id(at: k)
        return OutboxItem(
            id: id, pushID: pushID, target: target, topic: topic, pushType: pushType, payload: payload,
            environment: environment, priority: priority, expiration: expiration, collapseID: collapseID,
            apnsID: OutboxTargetList.apnsID(column: apnsIDColumn, id: id), now: createdAt)
    }

    /// Whether a notification of this push attempted `attempts` times before must end as `expired` at `second`
    /// (`OutboxItem.isExpired(at:)`).
    func isExpired(attempts: Int, second: Int64) -> Bool {
        guard let seconds = expiration.epochSeconds else { return false }
        if seconds == 0 { return attempts > 0 }
        return seconds < second
    }
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
