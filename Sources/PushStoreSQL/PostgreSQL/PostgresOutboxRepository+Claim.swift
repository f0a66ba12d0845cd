public import Foundation
import PostgresDriver
public import PushStore

extension PostgresOutboxRepository {
    /// See `OutboxRepository.claim`: in one transaction, first in-flight rows whose lease has run out (their
    /// owner died) and queued rows due at `now` (earliest due first), up to `limit` in all, go in flight
    /// under this instance's lease, counting the attempt; rows whose expiration has passed become `expired`
    /// instead. Rows are claimed one by one when they have a state row and by the range when they do not
    /// (`PostgresSchema.outboxSegments`); both are picked with `FOR UPDATE SKIP LOCKED`, so instances
    /// claiming at once never take the same row: each skips the rows and ranges another is taking.
    /// Due times, leases and expirations are compared, and leases written, on the database's clock
    /// (`PostgresClock`; `now` only under `.caller`).
    public func claim(limit: Int, now: Date) async throws -> OutboxClaim {
        guard limit > 0 else { return OutboxClaim() }
        let clock = database.clock
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
                if try Self.claimPage(page, moment, db, into: &claim) < page { break }
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

    /// A due row with a state row, or a live range of rows without one, as picked.
    private struct Candidate {
        /// A row (with a state row), not a range.
        var isRow: Bool
        /// The row's `seq`, or the range's `lo`.
        var key: Int64
        /// The range's `hi`.
        var hi: Int64
        var due: Int64
        /// Rows it holds (1 for a row, `remaining` for a range).
        var count: Int
        /// A range none of whose rows has a state row yet.
        var fresh: Bool
        /// 1 when queued, 0 when taken over from an owner whose lease ran out.
        var queued: Int64
    }

    /// Claims up to `page` rows into `claim` and returns how many it took (claimed and expired): fewer than
    /// `page` when no more are due.
    private static func claimPage(_ page: Int, _ moment: ClaimMoment, _ db: PostgresConnection, into claim: inout OutboxClaim)
        throws -> Int
    {
        let candidates = try db.query(pickSQL, [moment.millis, .integer(Int64(page))]).map { row in
            Candidate(
                isRow: row.bool(at: 0), key: row.int64(at: 1), hi: row.int64(at: 2), due: row.int64(at: 3),
                count: row.int(at: 4), fresh: row.bool(at: 5), queued: row.int64(at: 6))
        }.sorted { ($0.due, $0.key) < ($1.due, $1.key) }
        var rows: [(seq: Int64?, queued: Int64)] = []
        var ranges: [(lo: Int64, queued: Int64)] = []
        var taken = 0
        for candidate in candidates where taken < page {
            if candidate.isRow {
                rows.append((candidate.key, candidate.queued))
                taken += 1
                continue
            }
            let wanted = page - taken
            if candidate.count > wanted { try split(candidate, keeping: wanted, db) }
            ranges.append((candidate.key, candidate.queued))
            taken += min(candidate.count, wanted)
        }
        var items: [OutboxItem] = []
        var keys: [(queued: Int64, due: Date, seq: Int64)] = []
        var expired: [(id: String, lo: Int64)] = []
        // Each claimed row carries its receipt: its `seq`, and the range it was claimed with (`range`).
        func read(_ row: PostgresRow, range: Int64?) {
            var item = PostgresOutboxColumn.item(row)
            let seq = row.int64(PostgresOutboxColumn.seq)
            item.receipt = OutboxReceipt(sequence: seq, range: range)
            keys.append((row.int64(at: PostgresOutboxColumn.end), item.nextAttemptAt, seq))
            if let range, item.state == .expired { expired.append((item.id, range)) }
            items.append(item)
        }
        if !rows.isEmpty {
            let claimed = try db.query(
                claimRowsSQL,
                [
                    moment.millis, moment.second, .integerArray(rows.map(\.seq)),
                    .integerArray(rows.map(\.queued)), .text(moment.owner), .integer(moment.lease),
                ])
            for index in 0..<claimed.count { read(claimed[index], range: nil) }
        }
        if !ranges.isEmpty {
            let claimed = try db.query(
                claimRangesSQL,
                [
                    moment.millis, moment.second, .integerArray(ranges.map(\.lo)),
                    .integerArray(ranges.map(\.queued)), .text(moment.owner), .integer(moment.lease),
                ])
            for index in 0..<claimed.count {
                read(claimed[index], range: claimed[index].int64(at: PostgresOutboxColumn.end + 1))
            }
            if !expired.isEmpty {
                try db.run(
                    settleExpiredSQL, [.textArray(expired.map(\.id)), .integerArray(expired.map(\.lo)), moment.millis])
            }
        }
        // RETURNING keeps no order: taken-over rows first, then by the order the rows were picked in. The
        // positions are sorted, not the rows (large values, copied at every move), and only when out of order.
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

    /// Cuts `range` after its first `count` rows without a state row: the range keeps those, a new range
    /// (the same due time, attempts and lease) takes the rest, still waiting to be claimed.
    private static func split(_ range: Candidate, keeping count: Int, _ db: PostgresConnection) throws {
        let last: Int64
        if range.fresh {
            last = range.key + Int64(count) - 1
        } else {
            last = try db.query(
                """
                SELECT seq FROM outbox_items i WHERE seq BETWEEN $1 AND $2
                    AND NOT EXISTS (SELECT 1 FROM outbox_state r WHERE r.seq = i.seq)
                ORDER BY seq OFFSET $3 LIMIT 1
                """, [.integer(range.key), .integer(range.hi), .integer(Int64(count - 1))]
            )[0].int64(at: 0)
        }
        try db.run(
            """
            WITH kept AS (
                UPDATE outbox_segments SET hi = $2, remaining = $3 WHERE lo = $1
                RETURNING due, claims, owner, lease_until, updated_at
            )
            INSERT INTO outbox_segments (lo, hi, due, claims, remaining, owner, lease_until, updated_at)
            SELECT $2 + 1, $4, due, claims, $5, owner, lease_until, updated_at FROM kept
            """,
            [
                .integer(range.key), .integer(last), .integer(Int64(count)), .integer(range.hi),
                .integer(Int64(range.count - count)),
            ])
    }

    /// The pick of at most $2 due rows with a state row (index `outbox_due`) and due ranges holding at least
    /// $2 rows if there are (index `outbox_segments_due`) at $1 (now, ms; NULL: the database's, `PostgresClock`):
    /// queued, or in flight under a lease that ended before now.
    /// Returns for each: 1 for a row (0 for a range), its `seq` or `lo`, `hi`, due time, row count, whether no row
    /// of the range has a state row, and 1 when queued (0 when taken over). Ranges are locked only until their
    /// rows reach $2 (`outbox_claimable_segments`). What the claim does not take stays locked until it commits.
    static let pickSQL = """
        WITH r AS (
            SELECT seq, due, CASE WHEN state = 'queued' THEN 1 ELSE 0 END AS queued FROM outbox_state
            WHERE due <= \(PostgresClock.millis("$1"))
                AND (state = 'queued' OR (state = 'in_flight' AND lease_until < \(PostgresClock.millis("$1"))))
            ORDER BY due, seq LIMIT $2 FOR UPDATE SKIP LOCKED
        ), g AS (
            SELECT lo, hi, due, remaining, CASE WHEN owner IS NULL THEN 1 ELSE 0 END AS queued
            FROM outbox_claimable_segments(\(PostgresClock.millis("$1")), $2)
        )
        SELECT 1, seq, seq, due, 1, 1, queued FROM r
        UNION ALL
        SELECT 0, lo, hi, due, remaining, CASE WHEN remaining = hi - lo + 1 THEN 1 ELSE 0 END, queued FROM g
        """

    /// The claim of rows $3 (`seq`, picked, with $4 their queued flags) at $1 (now, ms; NULL: the database's):
    /// each goes in flight for owner $5 for $6 ms from now, its attempt counted, or expires
    /// (`expiredCondition`, $2 the current epoch second; NULL: the database's). Returns every column of each row (`PostgresOutboxColumn`), then its queued flag.
    ///
    /// A claim writes no indexed column (`PostgresSchema.outboxDue`): `due` stays, so the update is HOT. An
    /// expiring row leaves the index (`due` NULL): that update is not HOT, and rare.
    static let claimRowsSQL = """
        WITH p AS MATERIALIZED (
            SELECT * FROM unnest($3::bigint[], $4::bigint[]) AS p(seq, queued)
        ), claimed AS (
            UPDATE outbox_state o SET
                state = CASE WHEN \(expiredCondition) THEN 'expired' ELSE 'in_flight' END,
                last_reason = CASE WHEN \(expiredCondition) THEN 'Expired' ELSE o.last_reason END,
                attempts = CASE WHEN \(expiredCondition) THEN o.attempts ELSE o.attempts + 1 END,
                owner = CASE WHEN \(expiredCondition) THEN NULL ELSE $5::text END,
                lease_until = CASE WHEN \(expiredCondition) THEN NULL ELSE \(PostgresClock.millis("$1")) + $6::bigint END,
                due = CASE WHEN \(expiredCondition) THEN NULL ELSE o.due END,
                ended_at = CASE WHEN \(expiredCondition) THEN \(PostgresClock.millis("$1")) ELSE NULL END,
                updated_at = \(PostgresClock.millis("$1"))
            FROM p WHERE o.seq = p.seq
            RETURNING o.*, p.queued
        )
        SELECT \(PostgresOutboxColumn.selectList), s.queued FROM claimed s JOIN outbox_items i ON i.seq = s.seq
        """

    /// SQL twin of `OutboxItem.isExpired(at:)` over `outbox_state o`, with $2 the current epoch second (NULL:
    /// the database's). Attempts are the count before this claim. A row expiring at second E is still sent
    /// during second E.
    private static let expiredCondition =
        "((o.expiration > 0 AND o.expiration < \(PostgresClock.seconds("$2"))) OR (o.expiration = 0 AND o.attempts > 0))"

    /// The claim of ranges $3 (`lo`, picked, with $4 their queued flags) at $1: each goes in flight for owner
    /// $5 for $6 ms from now, its attempts counted, one row version per range. Returns every column of each of their
    /// rows without a state row, in flight, or `expired` when its expiration passed ($2 the current epoch
    /// second; `claims` counts this claim, so "attempted before" is `claims > 1`), then the range's queued
    /// flag and `lo`. The caller writes the expired rows' state rows (`settleExpiredSQL`). Whether a row has a
    /// state row is looked up only in ranges that have some (a join, not `NOT EXISTS`: beside an `OR`, the
    /// planner made that a hash of every state row).
    static let claimRangesSQL = """
        WITH p AS MATERIALIZED (
            SELECT * FROM unnest($3::bigint[], $4::bigint[]) AS p(lo, queued)
        ), g AS (
            UPDATE outbox_segments g SET owner = $5, lease_until = \(PostgresClock.millis("$1")) + $6::bigint,
                claims = g.claims + 1, updated_at = \(PostgresClock.millis("$1"))
            FROM p WHERE g.lo = p.lo
            RETURNING g.lo, g.hi, g.claims, g.due, g.remaining = g.hi - g.lo + 1 AS fresh, p.queued
        )
        SELECT \(PostgresOutboxColumn.selectList), g.queued, g.lo
        FROM g JOIN outbox_items i ON i.seq BETWEEN g.lo AND g.hi
        CROSS JOIN LATERAL (SELECT (i.expiration > 0 AND i.expiration < \(PostgresClock.seconds("$2")))
            OR (i.expiration = 0 AND g.claims > 1)
            AS expired) x
        CROSS JOIN LATERAL (SELECT
            CASE WHEN x.expired THEN 'expired' ELSE 'in_flight' END AS state,
            CASE WHEN x.expired THEN g.claims - 1 ELSE g.claims END AS attempts, g.due AS next_attempt_at,
            NULL::integer AS last_status, CASE WHEN x.expired THEN 'Expired' END AS last_reason,
            NULL::text AS apns_unique_id, \(PostgresClock.millis("$1")) AS updated_at) s
        LEFT JOIN LATERAL (SELECT 1 AS settled FROM outbox_state r WHERE NOT g.fresh AND r.seq = i.seq) r ON true
        WHERE r.settled IS NULL
        """

    /// The state rows of rows $1 (ids) of ranges $2 (`lo`) that expired at $3 (now, ms; NULL: the database's), under the range's
    /// attempts before this claim; the ranges are counted down.
    private static let settleExpiredSQL = """
        WITH e AS MATERIALIZED (
            SELECT * FROM unnest($1::text[], $2::bigint[]) AS e(id, lo)
        ), settled AS (
            INSERT INTO outbox_state (id, seq, state, attempts, next_attempt_at, expiration, last_reason, updated_at,
                ended_at)
            SELECT i.id, i.seq, 'expired', g.claims - 1, g.due, i.expiration, 'Expired', \(PostgresClock.millis("$3")),
                \(PostgresClock.millis("$3"))
            FROM e JOIN outbox_items i ON i.id = e.id JOIN outbox_segments g ON g.lo = e.lo
            RETURNING seq
        )\(countDownSQL(settled: """
            SELECT g.lo FROM settled CROSS JOIN LATERAL \(PostgresOutboxColumn.rangeAtOrBefore("settled.seq"))
            """))
        SELECT count(*) FROM settled
        """

    /// The CTEs (after a CTE list, starting with a comma) that count down each range by the rows `settled`
    /// (a query returning one `lo` per row that just got its state row; it must not join two row lists, which
    /// without hash joins is a loop over one per row of the other) and delete the ranges left with none. The
    /// ranges are locked by the statement's transaction (its claim or completion holds them).
    static func countDownSQL(settled: String) -> String {
        """
        , counted AS MATERIALIZED (
            SELECT lo, count(*) AS n FROM (\(settled)) c GROUP BY lo
        ), counted_down AS (
            UPDATE outbox_segments g SET remaining = g.remaining - c.n FROM counted c WHERE g.lo = c.lo AND g.remaining > c.n
        ), finished AS (
            DELETE FROM outbox_segments g USING counted c WHERE g.lo = c.lo AND g.remaining = c.n
        )
        """
    }
}
