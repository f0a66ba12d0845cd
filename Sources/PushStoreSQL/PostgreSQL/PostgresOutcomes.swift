import Foundation
import PostgresDriver
import PushStore

/// Outcomes of in-flight notifications (completions, or expiries found by a claim), written by one
/// statement (`sql`).
///
/// An outcome that leaves no row (accepted at the first attempt without an `apns-unique-id`, claimed with a
/// range: most of them) only sets its bit in the range: it goes by its range and position alone (`Leaving`),
/// numbers the statement reads a range at a time, not a row of a dozen columns each; the others go row by row.
struct PostgresOutcomes: Sendable {
    /// The outcomes that leave no row, by the range and attempt they were claimed under, each group's
    /// positions (`seq - lo`) and ids in the order appended.
    private struct Leaving {
        var keys: [RangeClaim: Int] = [:]
        var ranges: [Int64] = []
        var fences: [Int64] = []
        var positions: [[Int64]] = []
        var ids: [[String]] = []

        struct RangeClaim: Hashable {
            var range: Int64
            var fence: Int64
        }

        var isEmpty: Bool { ranges.isEmpty }

        mutating func append(id: String, seq: Int64, range: Int64, fence: Int64) {
            let key = RangeClaim(range: range, fence: fence)
            let group: Int
            if let known = keys[key] {
                group = known
            } else {
                group = ranges.count
                keys[key] = group
                ranges.append(range)
                fences.append(fence)
                positions.append([])
                ids.append([])
            }
            positions[group].append(seq - range)
            ids[group].append(id)
        }

        /// $14 … $18 of `sql`: each group's range and fence, its first position's offset in the positions and
        /// their count, then every group's positions one after the other.
        var parameters: [PostgresValue] {
            var firsts: [Int64?] = []
            var counts: [Int64?] = []
            var all: [Int64?] = []
            firsts.reserveCapacity(ranges.count)
            counts.reserveCapacity(ranges.count)
            all.reserveCapacity(positions.reduce(0) { $0 + $1.count })
            for group in positions {
                firsts.append(Int64(all.count))
                counts.append(Int64(group.count))
                all.append(contentsOf: group.lazy.map { Optional($0) })
            }
            return [
                .integerArray(ranges.map { Optional($0) }), .integerArray(fences.map { Optional($0) }),
                .integerArray(firsts), .integerArray(counts), .integerArray(all),
            ]
        }
    }

    private var leaving = Leaving()
    private var ids: [String?] = []
    private var fences: [Int64?] = []
    private var attempts: [Int64?] = []
    private var states: [String?] = []
    private var statuses: [Int64?] = []
    private var reasons: [String?] = []
    private var uniqueIDs: [String?] = []
    private var backOffs: [Int64?] = []
    private var seqs: [Int64?] = []
    private var ranges: [Int64?] = []
    private var bases: [String?] = []
    private var positions: [Int64?] = []

    var isEmpty: Bool { ids.isEmpty && leaving.isEmpty }
    /// Whether every outcome leaves no row (`Leaving`): the statement's generic plan serves them as well as a
    /// custom one (`PostgresOutboxSplitTests`), so such a batch skips planning (`planOnce`).
    var leavesOnly: Bool { ids.isEmpty }

    /// Whether any ends a notification rejected or failed.
    var mayEnd: Bool { states.contains { $0 == OutboxState.rejected.rawValue || $0 == OutboxState.failed.rawValue } }

    /// The outcome of notification `id` in flight under attempt `fence`: it becomes `state` with `attempts`,
    /// due again `backOff` ms after now (a retry); `seq` and `range` are its receipt's (nil: found by `id`).
    mutating func append(
        id: String, fence: Int, attempts: Int, state: OutboxState, status: Int?, reason: String?, uniqueID: String?,
        backOff: Int64?, seq: Int64?, range: Int64?
    ) {
        if state == .accepted, uniqueID == nil, attempts == 1, let seq, let range, seq >= range {
            leaving.append(id: id, seq: seq, range: range, fence: Int64(fence))
            return
        }
        ids.append(id)
        fences.append(Int64(fence))
        self.attempts.append(Int64(attempts))
        states.append(state.rawValue)
        statuses.append(status.map(Int64.init))
        reasons.append(reason)
        uniqueIDs.append(uniqueID)
        backOffs.append(backOff)
        seqs.append(seq)
        ranges.append(range)
        let key = seq == nil ? OutboxPushRun.key(of: id) : nil
        bases.append(key?.base)
        positions.append(key.map { Int64($0.index) })
    }

    /// The parameters of `sql` at `now`.
    func parameters(now: PostgresValue) -> [PostgresValue] {
        [
            .textArray(ids), .integerArray(fences), .textArray(states), .integerArray(statuses), .textArray(reasons),
            .textArray(uniqueIDs), .integerArray(backOffs), now, .integerArray(seqs), .integerArray(ranges),
            .textArray(bases), .integerArray(positions), .integerArray(attempts),
        ] + leavingParameters
    }

    /// $14 … $18 of `sql`: the outcomes that leave no row (`Leaving`).
    var leavingParameters: [PostgresValue] { leaving.parameters }

    /// Writes the outcomes at `now` (a `PostgresClock.millis` value) in the caller's transaction; returns
    /// the id and new state of each notification changed.
    func record(now: PostgresValue, committing: Bool = false, _ db: PostgresConnection) throws -> [(String, OutboxState)] {
        let rows = try db.query(Self.sql, parameters(now: now), committing: committing)
        var changed: [(String, OutboxState)] = []
        changed.reserveCapacity(rows.count)
        // A group some of whose notifications left no longer in flight: its positions to its ids, made once.
        var byPosition: [Int: [Int64: String]] = [:]
        for index in 0..<rows.count {
            let row = rows[index]
            guard row.isNull(at: 0) else {
                changed.append((row.string(at: 0), OutboxState(rawValue: row.string(at: 1)) ?? .failed))
                continue
            }
            let group = row.int(at: 2) - 1
            guard !row.isNull(at: 3) else {
                changed.append(contentsOf: leaving.ids[group].lazy.map { ($0, .accepted) })
                continue
            }
            if byPosition[group] == nil {
                byPosition[group] = Dictionary(
                    zip(leaving.positions[group], leaving.ids[group]), uniquingKeysWith: { first, _ in first })
            }
            if let id = byPosition[group]?[row.int64(at: 3)] { changed.append((id, .accepted)) }
        }
        return changed
    }

    /// The outcomes: $1 ids, $2 attempts they were claimed under (the fences), $3 states, $4 statuses, $5
    /// reasons, $6 apns-unique-ids (NULL keeps the stored one), $7 back-offs, the next attempt times in ms
    /// after now (NULL keeps the stored one), $8 now (ms; NULL: the database's, `PostgresClock`), $9 and $10
    /// the receipts' `seq` and range (NULL without a receipt; a NULL range with a `seq`: claimed on its own),
    /// $11 and $12 the base and position of each id without a receipt (`OutboxPushRun.key(of:)`), $13 the
    /// attempts each outcome records; then the outcomes that leave no row (`Leaving`): $14 the ranges they
    /// were claimed with, $15 the attempts (fences), $16 the offset of each group's first position in $18 and
    /// $17 their count, $18 the positions (`seq - lo`). Returns the id and new state of each notification
    /// changed, the row-free ones by their group (the third column, counted from 1): the group alone when
    /// every one of its notifications left its range, else a row per position that did (the fourth).
    ///
    /// - Each one's claim is found first (`t`): from its receipt, or from its id (its push by base and
    ///   position, then its outcome row if it has one, else the live range covering it).
    /// - One claimed on its own changes its outcome row (`UPDATE`) while it is in flight under the outcome's
    ///   attempt. A finished or re-queued one gives up its lease; a re-queued one is due again at its next
    ///   attempt.
    /// - One claimed with a range leaves the range while the range still holds it (its `done` bit unset; a
    ///   range cut since, after its lease ran out, no longer does) and is in flight under the outcome's
    ///   attempt: its bit is set and the range counted down, deleted at 0. It gets an outcome row (`INSERT`)
    ///   unless it was accepted at its first attempt without an apns-unique-id. The ranges are locked first
    ///   (`FOR UPDATE`, in `lo` order): the fence is read from the lock's row version, which is the newest
    ///   (a claim that took a range over committed before the lock is seen), and no claim or other
    ///   completion changes the range until this commits, so no two instances lose each other's bits. The
    ///   count-down and the deletion decide from the locked version too (`counted`), never from the range
    ///   as the statement's snapshot saw it: a completion that waited for the lock while another one of the
    ///   same range committed sees that one's bits and count only through the lock (an `UPDATE`/`DELETE`
    ///   tests its condition on the snapshot's version first, so `remaining` there is the old count: the
    ///   range would neither be counted down nor deleted, and its rows would be claimed and sent again).
    ///   The row-free ones leave by the group (`gone`), on the same conditions, read from the same lock.
    /// - Each push with a notification accepted without an outcome row records the time (`settled_at`, that
    ///   notification's change time), once per range (the pushes between the first and the last such
    ///   notification of a range; the first push's `lo` found first, in `spans`, so that the update reads
    ///   the pushes by both bounds). A notification with an outcome row keeps its time there.
    ///
    /// The fence compares with values of the batch (`t.fence` is 'in_flight' for every one), not with a
    /// constant: a constant would give the planner its estimate of in-flight rows, which lags far behind a
    /// queue, and with it the planner chose to scan the in-flight rows once per completed one.
    static let sql = """
        WITH v AS MATERIALIZED (
            SELECT v.id, v.attempt, v.state, v.status, v.reason, v.unique_id,
                \(PostgresClock.millis("$8")) + v.next_attempt AS next_attempt, v.seq, v.lo, v.base, v.pos, v.stored,
                'in_flight'::text AS fence
            FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bigint[],
                $9::bigint[], $10::bigint[], $11::text[], $12::bigint[], $13::bigint[])
                AS v(id, attempt, state, status, reason, unique_id, next_attempt, seq, lo, base, pos, stored)
        ), t AS MATERIALIZED (
            SELECT v.id, v.attempt, v.stored, v.state, v.status, v.reason, v.unique_id, v.next_attempt, v.seq, v.lo, v.fence
            FROM v WHERE v.seq IS NOT NULL
            UNION ALL
            SELECT v.id, v.attempt, v.stored, v.state, v.status, v.reason, v.unique_id, v.next_attempt, x.seq,
                CASE WHEN r.seq IS NULL THEN g.lo END, v.fence
            FROM v
            CROSS JOIN LATERAL (SELECT p.lo + v.pos - p.first_index AS seq, p.first_index + p.count > v.pos AS held
                FROM outbox_pushes p WHERE p.base = v.base AND p.first_index <= v.pos
                ORDER BY p.first_index DESC LIMIT 1) x
            LEFT JOIN outbox_state r ON r.seq = x.seq
            LEFT JOIN LATERAL (SELECT g.* FROM outbox_segments g WHERE r.seq IS NULL AND g.lo <= x.seq
                ORDER BY g.lo DESC LIMIT 1) g ON g.hi >= x.seq
            WHERE v.seq IS NULL AND x.held
        ), f AS MATERIALIZED (
            SELECT * FROM unnest($14::bigint[], $15::bigint[], $16::bigint[], $17::bigint[]) WITH ORDINALITY
                AS f(lo, attempt, first, count, g)
        ), locked AS MATERIALIZED (
            SELECT lo, hi, claims, owner, due, done, remaining FROM outbox_segments
            WHERE lo = ANY (ARRAY(SELECT lo FROM t WHERE lo IS NOT NULL UNION SELECT lo FROM f))
            ORDER BY lo FOR UPDATE
        ), gone AS MATERIALIZED (
            SELECT f.g, f.lo, f.count, ARRAY(SELECT k FROM unnest(($18::bigint[])[f.first + 1:f.first + f.count]) AS k
                WHERE k BETWEEN 0 AND l.hi - l.lo AND (l.done IS NULL OR get_bit(l.done, k::integer) = 0)) AS ks
            FROM f JOIN locked l ON l.lo = f.lo
            WHERE l.owner IS NOT NULL AND l.claims = f.attempt
        ), leaving AS MATERIALIZED (
            SELECT c.*, l.due AS range_due FROM t c JOIN locked l ON l.lo = c.lo
            WHERE c.seq BETWEEN l.lo AND l.hi AND l.owner IS NOT NULL AND l.claims = c.attempt
                AND (l.done IS NULL OR get_bit(l.done, (c.seq - l.lo)::integer) = 0)
        ), inserted AS (
            INSERT INTO outbox_state (id, seq, state, attempts, next_attempt_at, expiration, last_status, last_reason,
                apns_unique_id, updated_at, due, ended_at)
            SELECT c.id, c.seq, c.state, c.stored, coalesce(c.next_attempt, c.range_due),
                CASE WHEN c.state = 'queued' THEN
                    (SELECT p.expiration FROM outbox_pushes p WHERE p.lo <= c.seq ORDER BY p.lo DESC LIMIT 1) END,
                c.status, c.reason, c.unique_id, \(PostgresClock.millis("$8")),
                CASE WHEN c.state = 'queued' THEN coalesce(c.next_attempt, c.range_due) END,
                CASE WHEN c.state = 'queued' THEN NULL ELSE \(PostgresClock.millis("$8")) END
            FROM leaving c
            WHERE c.state <> 'accepted' OR c.unique_id IS NOT NULL OR c.stored <> 1
        ), counted AS MATERIALIZED (
            SELECT u.lo, sum(u.n) AS n, l.remaining, l.hi, l.done
            FROM (SELECT lo, 1 AS n FROM leaving UNION ALL SELECT lo, cardinality(ks) FROM gone WHERE cardinality(ks) > 0) u
            JOIN locked l ON l.lo = u.lo GROUP BY u.lo, l.remaining, l.hi, l.done
        ), counted_down AS (
            UPDATE outbox_segments g SET remaining = c.remaining - c.n, done = outbox_done(c.done, c.hi - c.lo + 1,
                ARRAY(SELECT r.seq - r.lo FROM leaving r WHERE r.lo = c.lo UNION ALL SELECT k FROM gone d, unnest(d.ks) AS k
                    WHERE d.lo = c.lo))
            FROM counted c WHERE g.lo = c.lo AND c.remaining > c.n
        ), finished AS (
            DELETE FROM outbox_segments g USING counted c WHERE g.lo = c.lo AND c.remaining = c.n
        ), updated AS (
            UPDATE outbox_state s SET state = t.state, last_status = t.status, last_reason = t.reason,
                apns_unique_id = coalesce(t.unique_id, s.apns_unique_id),
                next_attempt_at = coalesce(t.next_attempt, s.next_attempt_at),
                owner = NULL, lease_until = NULL, updated_at = \(PostgresClock.millis("$8")),
                due = CASE WHEN t.state = 'queued' THEN coalesce(t.next_attempt, s.next_attempt_at) END,
                ended_at = CASE WHEN t.state = 'queued' THEN NULL ELSE \(PostgresClock.millis("$8")) END
            FROM t
            WHERE t.lo IS NULL AND s.seq = t.seq AND s.attempts = t.attempt AND s.state = t.fence
            RETURNING t.id, s.state, s.seq
        ), spans AS MATERIALIZED (
            SELECT coalesce((SELECT max(q.lo) FROM outbox_pushes q WHERE q.lo <= x.first), x.first) AS start, x.last
            FROM (SELECT min(seq) AS first, max(seq) AS last FROM leaving c
                WHERE c.state = 'accepted' AND c.unique_id IS NULL AND c.stored = 1 GROUP BY lo
                UNION ALL
                SELECT d.lo + (SELECT min(k) FROM unnest(d.ks) AS k), d.lo + (SELECT max(k) FROM unnest(d.ks) AS k)
                FROM gone d WHERE cardinality(d.ks) > 0) x
        ), settled AS (
            UPDATE outbox_pushes p SET settled_at = \(PostgresClock.millis("$8"))
            FROM spans x WHERE p.lo >= x.start AND p.lo <= x.last AND p.settled_at < \(PostgresClock.millis("$8"))
        )
        SELECT id, state, NULL::bigint, NULL::bigint FROM leaving
        UNION ALL SELECT id, state, NULL, NULL FROM updated
        UNION ALL SELECT NULL, NULL, g, NULL FROM gone WHERE cardinality(ks) = count
        UNION ALL SELECT NULL, NULL, g, k FROM gone, unnest(ks) AS k WHERE cardinality(ks) < count
        """
}
