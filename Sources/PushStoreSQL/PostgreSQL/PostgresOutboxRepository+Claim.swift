import APNSCore
public import Foundation
import PostgresDriver
public import PushStore

extension PostgresOutboxRepository {
    /// See `OutboxRepository.claim`: in one transaction, first in-flight rows whose lease has run out (their
    /// owner died) and queued rows due at `now` (earliest due first), up to `limit` in all, go in flight
    /// under this instance's lease, counting the attempt; rows whose expiration has passed become `expired`
    /// instead. Notifications are claimed one by one when they have an outcome row and by the range when
    /// they do not (`PostgresSchema.outboxSegments`, `PostgresSchema.outboxPushes`); both are picked with
    /// `FOR UPDATE SKIP LOCKED`, so instances claiming at once never take the same one: each skips the rows
    /// and ranges another is taking. The items are built from their pushes, read once per claimed range:
    /// the items of one push share its payload, topic and push id. An expired notification of a range gets
    /// its outcome row in the same transaction (`PostgresOutcomes`).
    /// Due times, leases and expirations are compared, and leases written, on the database's clock
    /// (`PostgresClock`; `now` only under `.caller`).
    public func claim(limit: Int, now: Date) async throws -> OutboxClaim {
        guard limit > 0 else { return OutboxClaim() }
        let clock = database.clock
        let targetCache = database.targetCache
        let moment = ClaimMoment(
            millis: clock.millis(now), second: clock.seconds(now), owner: database.instanceID,
            lease: Int64((lease / .milliseconds(1)).rounded()))
        return try await database.transaction { db in
            // Walk the queue indexes in claim order. The planner's row estimates for a queue lag far behind
            // (autovacuum analyzes it now and then while it grows and drains by thousands a second); with a
            // low estimate it collects and sorts every due row to take the first `limit`, which costs time in
            // proportion to the backlog (15 ms instead of 1 ms for 1,000 of 20,000 due rows).
            db.executeWithNext("SET LOCAL enable_sort = off")
            db.executeWithNext("SET LOCAL enable_bitmapscan = off")
            db.lookUpByKey()
            db.commitWithoutFlush()
            var claim = OutboxClaim()
            // Expired rows are reported but do not count against `limit`: pick again until it is reached
            // or a pick finds fewer rows than it asked for.
            while claim.items.count < limit {
                let page = limit - claim.items.count
                if try Self.claimPage(page, moment, targetCache: targetCache, db, into: &claim) < page { break }
            }
            try Self.reportEnded(claim.expired.map { ($0, nil) }, now: now, db)
            return claim
        }
    }

    /// The clock, owner and lease of one claim.
    struct ClaimMoment {
        /// Now, in ms (`PostgresClock.millis`: NULL for the database's clock).
        var millis: PostgresValue
        /// Now, in whole epoch seconds, what expirations are compared with (`PostgresClock.seconds`).
        var second: PostgresValue
        /// The claiming instance.
        var owner: String
        /// The length of the claim's lease, in ms (it ends that long after now).
        var lease: Int64
    }

    /// A due notification with an outcome row, or a live range of notifications, as picked.
    private struct Candidate {
        /// A notification (with an outcome row), not a range.
        var isRow: Bool
        /// The notification's `seq`, or the range's `lo`.
        var key: Int64
        /// The range's `hi`.
        var hi: Int64
        var due: Int64
        /// Notifications it holds (1 for a notification, `remaining` for a range).
        var count: Int
        /// The range's `done` bits.
        var done: PostgresDoneBits
        /// 1 when queued, 0 when taken over from an owner whose lease ran out.
        var queued: Int64
    }

    /// Claims up to `page` notifications into `claim` and returns how many it took (claimed and expired):
    /// fewer than `page` when no more are due.
    private static func claimPage(
        _ page: Int, _ moment: ClaimMoment, targetCache: OutboxTargetCache, _ db: PostgresConnection, into claim: inout OutboxClaim
    ) throws -> Int {
        let candidates = try db.query(pickSQL, [moment.millis, .integer(Int64(page))]).map { row in
            Candidate(
                isRow: row.bool(at: 0), key: row.int64(at: 1), hi: row.int64(at: 2), due: row.int64(at: 3),
                count: row.int(at: 4), done: PostgresDoneBits(bytes: row.isNull(at: 5) ? nil : row.bytes(at: 5)),
                queued: row.int64(at: 6))
        }.sorted { ($0.due, $0.key) < ($1.due, $1.key) }
        // The cuts, the claims and the read of the claimed notifications' pushes go in one round trip: what
        // each range keeps after its cut is known here, and the pick has locked every row and range taken.
        var statements: [(sql: String, parameters: [PostgresValue])] = []
        var rows: [(seq: Int64?, queued: Int64)] = []
        var ranges: [(lo: Int64, queued: Int64)] = []
        var intervals: [(Int64, Int64)] = []
        var taken = 0
        for candidate in candidates where taken < page {
            if candidate.isRow {
                rows.append((candidate.key, candidate.queued))
                intervals.append((candidate.key, candidate.key))
                taken += 1
                continue
            }
            let wanted = page - taken
            var hi = candidate.hi
            if candidate.count > wanted {
                let cut = split(candidate, keeping: wanted)
                statements.append(cut.statement)
                hi = cut.hi
            }
            ranges.append((candidate.key, candidate.queued))
            intervals.append((candidate.key, hi))
            taken += min(candidate.count, wanted)
        }
        guard !intervals.isEmpty else { return taken }
        if !rows.isEmpty {
            statements.append(
                (
                    claimRowsSQL,
                    [
                        moment.millis, moment.second, .integerArray(rows.map(\.seq)),
                        .integerArray(rows.map(\.queued)), .text(moment.owner), .integer(moment.lease),
                    ]
                ))
        }
        if !ranges.isEmpty {
            statements.append(
                (
                    claimRangesSQL,
                    [
                        moment.millis, moment.second, .integerArray(ranges.map(\.lo)),
                        .integerArray(ranges.map(\.queued)), .text(moment.owner), .integer(moment.lease),
                    ]
                ))
        }
        let covering = PostgresOutboxPushes.covering(intervals, cache: targetCache)
        statements.append((covering.sql, covering.parameters))
        let answers = try db.queries(statements)
        var next = answers.count - 1 - (rows.isEmpty ? 0 : 1) - (ranges.isEmpty ? 0 : 1)
        var states: [PostgresRows] = []
        if !rows.isEmpty {
            states.append(answers[next])
            next += 1
        }
        let claimedRanges = ranges.isEmpty ? [] : answers[next].map(ClaimedRange.init(row:))
        let pushes = try PostgresOutboxPushes(rows: answers[answers.count - 1], cached: covering.cached, cache: targetCache, db)
        var items: [OutboxItem] = []
        var keys: [(queued: Int64, due: Int64, seq: Int64)] = []
        var expired = PostgresOutcomes()
        for rows in states {
            for index in 0..<rows.count {
                let row = rows[index]
                let seq = row.int64(at: 0)
                guard let push = pushes.index(of: seq) else { continue }
                var item = pushes.pushes[push].item(at: seq)
                PostgresOutcomeRow.read(row, at: 1, into: &item)
                item.receipt = OutboxReceipt(sequence: seq)
                keys.append((row.int64(at: 8), item.nextAttemptAt.storeMillis, seq))
                items.append(item)
            }
        }
        for range in claimedRanges {
            var push: Int? = nil
            for k in range.done.pending(size: Int(range.hi - range.lo) + 1) {
                let seq = range.lo + Int64(k)
                if push.map({ pushes.pushes[$0].hi < seq }) ?? true { push = pushes.index(of: seq) }
                guard let push else { continue }
                var item = pushes.pushes[push].item(at: seq)
                let isExpired: Bool =
                    if let seconds = item.expiration.epochSeconds {
                        seconds == 0 ? range.claims > 1 : seconds < range.second
                    } else { false }
                item.state = isExpired ? .expired : .inFlight
                item.attempts = isExpired ? range.claims - 1 : range.claims
                item.nextAttemptAt = Date(storeMillis: range.due)
                item.updatedAt = Date(storeMillis: range.updatedAt)
                item.receipt = OutboxReceipt(sequence: seq, range: range.lo)
                if isExpired {
                    item.lastReason = .expired
                    expired.append(
                        id: item.id, fence: range.claims, attempts: item.attempts, state: .expired, status: nil,
                        reason: OutboxReason.expired.rawValue, uniqueID: nil, backOff: nil, seq: seq, range: range.lo)
                }
                keys.append((range.queued, range.due, seq))
                items.append(item)
            }
        }
        if !expired.isEmpty { _ = try expired.record(now: moment.millis, db) }
        // Taken-over notifications first, then by the order they were picked in. The positions are sorted, not
        // the items (large values, copied at every move), and only when out of order.
        var positions = Array(items.indices)
        if !zip(keys, keys.dropFirst()).allSatisfy({ $0 <= $1 }) { positions.sort { keys[$0] < keys[$1] } }
        claim.items.reserveCapacity(claim.items.count + items.count)
        for position in positions {
            if items[position].state == .expired {
                claim.expired.append(items[position].id)
            } else {
                claim.items.append(items[position])
            }
        }
        return taken
    }

    /// A range as `claimRangesSQL` returns it.
    private struct ClaimedRange {
        var lo: Int64
        var hi: Int64
        var claims: Int
        var due: Int64
        var done: PostgresDoneBits
        var queued: Int64
        var updatedAt: Int64
        /// Now, in whole epoch seconds (what expirations are compared with).
        var second: Int64

        init(row: PostgresRow) {
            lo = row.int64(at: 0)
            hi = row.int64(at: 1)
            claims = row.int(at: 2)
            due = row.int64(at: 3)
            done = PostgresDoneBits(bytes: row.isNull(at: 4) ? nil : row.bytes(at: 4))
            queued = row.int64(at: 5)
            updatedAt = row.int64(at: 6)
            second = row.int64(at: 7)
        }
    }

    /// The statement that cuts `range` after its first `count` pending notifications: the range keeps those,
    /// a new range (the same due time, attempts and lease) takes the rest, still waiting to be claimed; each
    /// keeps its part of the `done` bits. The range is locked by the pick. `hi`: the kept part's last `seq`.
    private static func split(_ range: Candidate, keeping count: Int)
        -> (statement: (sql: String, parameters: [PostgresValue]), hi: Int64)
    {
        let size = Int(range.hi - range.key) + 1
        let cut = range.done.pending(size: size)[count - 1] + 1
        let kept = range.done.slice(0..<cut)
        let rest = range.done.slice(cut..<size)
        let hi = range.key + Int64(cut) - 1
        let sql = """
            WITH kept AS (
                UPDATE outbox_segments SET hi = $2, remaining = $3, done = $6 WHERE lo = $1
                RETURNING due, claims, owner, lease_until, updated_at
            )
            INSERT INTO outbox_segments (lo, hi, due, claims, remaining, owner, lease_until, updated_at, done)
            SELECT $2 + 1, $4, due, claims, $5, owner, lease_until, updated_at, $7 FROM kept
            """
        let parameters: [PostgresValue] = [
            .integer(range.key), .integer(hi), .integer(Int64(count)), .integer(range.hi),
            .integer(Int64(range.count - count)), kept.map { .bytes($0) } ?? .null, rest.map { .bytes($0) } ?? .null,
        ]
        return ((sql, parameters), hi)
    }
}
