public import Foundation
import PostgresDriver
public import PushStore

/// `OutboxRepository` on a `PostgresDatabase` shared by several instances: a push stored once
/// (`outbox_pushes`), its pending notifications by the range (`outbox_segments`), and an outcome row
/// (`outbox_state`) only for notifications that need one (`PostgresSchema.outboxPushes`).
///
/// Claims are leases: a claimed row records this instance (`PostgresDatabase.instanceID`) and a deadline
/// `lease` after the claim; any instance claims it again once the deadline has passed (its owner died),
/// never before. Every claim counts an attempt, and `complete` writes an outcome only while the row is
/// still in flight under that attempt (the fence). Enqueues `NOTIFY` every instance's listener
/// (`PostgresDatabase.waitForOutbox`). Enqueue and completion are one statement per batch each; a claim picks,
/// then, in one round trip, cuts, claims and reads the claimed ranges' pushes once each (`PostgresOutboxPush.coveringSQL`).
/// Statements are in this type and its extensions (`+Enqueue`, `+Claim`, `+Complete`); notifications are
/// built from their push (`PostgresOutboxPush`).
public struct PostgresOutboxRepository: OutboxRepository {
    /// The database holding the table.
    public let database: PostgresDatabase
    /// The retry schedule used by `complete` for retryable outcomes.
    public let retryPolicy: OutboxRetryPolicy
    /// How long a claim holds a row against the other instances.
    public let lease: Duration

    /// The outbox in `database`, retrying by `retryPolicy`, claiming with leases of `lease`.
    public init(database: PostgresDatabase, retryPolicy: OutboxRetryPolicy = .default, lease: Duration = .seconds(60)) {
        self.database = database
        self.retryPolicy = retryPolicy
        self.lease = lease
    }

    /// See `OutboxRepository.recoverInFlight`: puts back this instance's own in-flight rows (after its
    /// worker stopped mid-send); rows other instances hold are theirs until their lease ends.
    @discardableResult
    public func recoverInFlight() async throws -> Int {
        let owner = database.instanceID
        return try await database.withConnection { db in
            try db.query(
                """
                WITH r AS (
                    UPDATE outbox_state SET state = 'queued', owner = NULL, lease_until = NULL
                    WHERE due IS NOT NULL AND state = 'in_flight' AND owner = $1
                    RETURNING 1
                ), g AS (
                    UPDATE outbox_segments SET owner = NULL, lease_until = NULL WHERE owner = $1 RETURNING remaining
                )
                SELECT (SELECT count(*) FROM r) + (SELECT coalesce(sum(remaining), 0) FROM g)
                """,
                [.text(owner)])[0].int(at: 0)
        }
    }

    /// See `OutboxRepository.item(id:)`.
    public func item(id: String) async throws -> OutboxItem? {
        try await database.transaction(isolation: .repeatableRead) { db in try Self.item(id: id, db) }
    }

    /// The notification `id`: its push found by base and position (`OutboxPushRun.key(of:)`), then its state.
    static func item(id: String, _ db: PostgresConnection) throws -> OutboxItem? {
        let key = OutboxPushRun.key(of: id)
        let found = try db.query(
            """
            SELECT \(PostgresOutboxPush.columns) FROM outbox_pushes p WHERE p.base = $1 AND p.first_index <= $2
            ORDER BY p.first_index DESC LIMIT 1
            """, [.text(key.base), .integer(Int64(key.index))])
        guard let push = found.map(PostgresOutboxPush.init(row:)).first, push.firstIndex + push.count > key.index else {
            return nil
        }
        let seq = push.lo + Int64(key.index - push.firstIndex)
        guard push.id(at: seq) == id else { return nil }
        return try items(of: PostgresOutboxPushes([push]), in: [(seq, seq)], db).first
    }

    /// See `OutboxRepository.items(pushID:)`.
    public func items(pushID: String) async throws -> [OutboxItem] {
        try await database.transaction(isolation: .repeatableRead) { db in
            let pushes = try db.query(
                "SELECT \(PostgresOutboxPush.columns) FROM outbox_pushes p WHERE p.push_id = $1 ORDER BY p.lo", [.text(pushID)]
            ).map(PostgresOutboxPush.init(row:))
            return try Self.items(of: PostgresOutboxPushes(pushes), in: pushes.map { ($0.lo, $0.hi) }, db)
        }
    }

    /// Every notification, in enqueue order: for audits that reconcile the whole outbox, not for serving
    /// requests.
    public func allItems() async throws -> [OutboxItem] {
        try await database.transaction(isolation: .repeatableRead) { db in
            let pushes = try db.query("SELECT \(PostgresOutboxPush.columns) FROM outbox_pushes p ORDER BY p.lo")
                .map(PostgresOutboxPush.init(row:))
            return try Self.items(of: PostgresOutboxPushes(pushes), in: pushes.map { ($0.lo, $0.hi) }, db)
        }
    }

    /// The notifications of `pushes` in `intervals` (`seq`, inclusive, ascending, each within one push),
    /// each with its state (`PostgresSchema.outboxPushes`): its outcome row if it has one; else, while a
    /// live range holds it (its `done` bit unset), queued or in flight under the range; else accepted at its
    /// first attempt, at its push's `settled_at`. `db` must be in a REPEATABLE READ transaction: outcomes and
    /// ranges are read by two statements, and a completion committed between them (an outcome row written
    /// after the first, its range gone before the second) would read as accepted.
    static func items(of pushes: PostgresOutboxPushes, in intervals: [(Int64, Int64)], _ db: PostgresConnection) throws
        -> [OutboxItem]
    {
        guard !intervals.isEmpty else { return [] }
        let bounds: [PostgresValue] = [
            .integerArray(intervals.map { Optional($0.0) }), .integerArray(intervals.map { Optional($0.1) }),
        ]
        let outcomes = try db.query(
            """
            SELECT s.seq, \(PostgresOutcomeRow.columns)
            FROM unnest($1::bigint[], $2::bigint[]) AS x(a, b) JOIN outbox_state s ON s.seq BETWEEN x.a AND x.b
            """, bounds)
        var outcomeRows: [Int64: Int] = [:]
        for index in 0..<outcomes.count { outcomeRows[outcomes[index].int64(at: 0)] = index }
        let ranges = try db.query(
            """
            SELECT g.lo, g.hi, g.due, g.claims, g.owner IS NOT NULL, g.updated_at, g.done
            FROM unnest($1::bigint[], $2::bigint[]) AS x(a, b)
            CROSS JOIN LATERAL \(rangeAtOrBefore("x.a")) WHERE g.hi >= x.a
            UNION
            SELECT g.lo, g.hi, g.due, g.claims, g.owner IS NOT NULL, g.updated_at, g.done
            FROM unnest($1::bigint[], $2::bigint[]) AS x(a, b) JOIN outbox_segments g ON g.lo > x.a AND g.lo <= x.b
            ORDER BY 1
            """, bounds)
        var range = 0
        var items: [OutboxItem] = []
        for (first, last) in intervals {
            var seq = first
            while seq <= last {
                defer { seq += 1 }
                guard let push = pushes.index(of: seq) else { continue }
                if let index = outcomeRows[seq] {
                    var item = pushes.pushes[push].item(at: seq)
                    PostgresOutcomeRow.read(outcomes[index], at: 1, into: &item)
                    items.append(item)
                    continue
                }
                while range < ranges.count, ranges[range].int64(at: 1) < seq { range += 1 }
                if range < ranges.count, ranges[range].int64(at: 0) <= seq {
                    let row = ranges[range]
                    let lo = row.int64(at: 0)
                    let done = PostgresDoneBits(bytes: row.isNull(at: 6) ? nil : row.bytes(at: 6))
                    if !done.isDone(Int(seq - lo)) {
                        var item = pushes.pushes[push].item(at: seq)
                        item.state = row.bool(at: 4) ? .inFlight : .queued
                        item.attempts = row.int(at: 3)
                        item.nextAttemptAt = Date(storeMillis: row.int64(at: 2))
                        item.updatedAt = Date(storeMillis: row.int64(at: 5))
                        items.append(item)
                        continue
                    }
                }
                items.append(pushes.pushes[push].acceptedItem(at: seq))
            }
        }
        return items
    }

    /// The range `g` of `outbox_segments` starting last at or before `seq` (an SQL expression), for a
    /// `LATERAL` join: the live range covering `seq` when `g.hi >= seq` (ranges never overlap).
    static func rangeAtOrBefore(_ seq: String) -> String {
        "(SELECT g.* FROM outbox_segments g WHERE g.lo <= \(seq) ORDER BY g.lo DESC LIMIT 1) g"
    }

    /// A query counting the live ranges whose `remaining` disagrees with the notifications they hold (their
    /// `done` bit unset, no outcome row, in a push): 0 in a consistent outbox. For audits (the chaos run)
    /// and tests.
    public static let miscountedRangesSQL = """
        SELECT count(*) FROM outbox_segments g WHERE g.remaining <> (SELECT count(*) FROM generate_series(g.lo, g.hi) x
            WHERE (g.done IS NULL OR get_bit(g.done, (x - g.lo)::integer) = 0)
                AND NOT EXISTS (SELECT 1 FROM outbox_state r WHERE r.seq = x)
                AND EXISTS (SELECT 1 FROM outbox_pushes p
                    WHERE p.lo = (SELECT max(q.lo) FROM outbox_pushes q WHERE q.lo <= x) AND p.lo + p.count > x))
        """

    /// A query counting outcome rows and live ranges that name a notification no push holds: 0 in a
    /// consistent outbox. For audits (the chaos run) and tests.
    public static let strayRowsSQL = """
        SELECT (SELECT count(*) FROM outbox_state r WHERE NOT EXISTS (SELECT 1 FROM outbox_pushes p
                WHERE p.lo = (SELECT max(q.lo) FROM outbox_pushes q WHERE q.lo <= r.seq) AND p.lo + p.count > r.seq))
            + (SELECT count(*) FROM outbox_segments g WHERE NOT EXISTS (SELECT 1 FROM outbox_pushes p
                WHERE p.lo = (SELECT max(q.lo) FROM outbox_pushes q WHERE q.lo <= g.lo) AND p.lo + p.count > g.lo))
        """

    /// See `OutboxRepository.counts`: outcome rows by state, the live ranges' notifications (all pending),
    /// and the rest of the pushes' notifications, accepted without an outcome row.
    public func counts() async throws -> [OutboxState: Int] {
        try await database.countsByState(Self.countsSQL, zeroing: OutboxState.allCases)
    }

    static let countsSQL = """
        SELECT state, sum(n)::bigint FROM (
            SELECT state, count(*) AS n FROM outbox_state GROUP BY state
            UNION ALL
            SELECT CASE WHEN owner IS NULL THEN 'queued' ELSE 'in_flight' END, sum(remaining) FROM outbox_segments
            GROUP BY owner IS NULL
            UNION ALL
            SELECT 'accepted', (SELECT coalesce(sum(count), 0) FROM outbox_pushes) - (SELECT count(*) FROM outbox_state)
                - (SELECT coalesce(sum(remaining), 0) FROM outbox_segments)
        ) c GROUP BY state
        """

    /// See `OutboxRepository.pendingCounts`: the pending outcome rows, found through `outbox_due`, and the
    /// live ranges.
    public func pendingCounts() async throws -> [OutboxState: Int] {
        try await database.countsByState(Self.pendingCountsSQL, zeroing: [.queued, .inFlight], pendingByIndex: true)
    }

    static let pendingCountsSQL = """
        SELECT state, sum(n)::bigint FROM (
            SELECT state, count(*) AS n FROM outbox_state WHERE due IS NOT NULL GROUP BY state
            UNION ALL
            SELECT CASE WHEN owner IS NULL THEN 'queued' ELSE 'in_flight' END, sum(remaining) FROM outbox_segments
            GROUP BY owner IS NULL
        ) c GROUP BY state
        """

    /// See `OutboxRepository.depth`: the pending counts' sum.
    public func depth() async throws -> Int {
        try await pendingCounts().values.reduce(0, +)
    }

    /// See `OutboxRepository.oldestPendingEnqueuedAt`: the lowest pending `seq` is the oldest notification:
    /// the lowest of pending outcome rows, or the lowest live range's (whose notifications were enqueued
    /// together); its push's enqueue time. (`seq + 0`: ordered by `seq` itself, the planner walked the
    /// outcome table's primary key from the oldest final row.)
    public func oldestPendingEnqueuedAt() async throws -> Date? {
        try await database.transaction { db in
            db.readPendingRowsByIndex()
            db.joinByLookup()
            return try db.query(Self.oldestPendingSQL).map { Date(storeMillis: $0.int64(at: 0)) }.first
        }
    }

    static let oldestPendingSQL = """
        SELECT p.created_at FROM (
            SELECT min(seq) AS seq FROM (
                (SELECT seq FROM outbox_state WHERE due IS NOT NULL ORDER BY seq + 0 LIMIT 1)
                UNION ALL
                (SELECT min(lo) FROM outbox_segments)
            ) s
        ) s JOIN outbox_pushes p ON p.lo = (SELECT max(q.lo) FROM outbox_pushes q WHERE q.lo <= s.seq)
        """

    /// See `OutboxRepository.purge(olderThan:limit:)`: whole pushes, oldest first, none of whose
    /// notifications is pending (no live range and no pending outcome row among them) and whose last change
    /// (`settled_at`, and the outcome rows' `updated_at`) is before `date`, with their outcome rows; returns
    /// their notifications. Pushes are
    /// taken while fewer than `limit` notifications are: at least one when any qualifies, so callers that
    /// loop until fewer than `limit` come back stop only when none is left.
    @discardableResult
    public func purge(olderThan date: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await database.transaction { db in
            db.lookUpByKey()
            return try db.query(Self.purgeSQL, [.integer(date.storeMillis), .integer(Int64(limit))])[0].int(at: 0)
        }
    }

    static let purgeSQL = """
        WITH c AS MATERIALIZED (
            SELECT p.lo, p.count FROM outbox_pushes p
            WHERE p.settled_at < $1
                AND NOT EXISTS (SELECT 1 FROM \(rangeAtOrBefore("p.lo + p.count - 1")) WHERE g.hi >= p.lo)
                AND NOT EXISTS (SELECT 1 FROM outbox_state s
                    WHERE s.seq BETWEEN p.lo AND p.lo + p.count - 1 AND (s.due IS NOT NULL OR s.updated_at >= $1))
            ORDER BY p.lo LIMIT $2
        ), chosen AS MATERIALIZED (
            SELECT lo, count FROM (SELECT lo, count, sum(count) OVER (ORDER BY lo) - count AS before FROM c) x
            WHERE before < $2
        ), outcomes AS (
            DELETE FROM outbox_state s USING chosen c WHERE s.seq BETWEEN c.lo AND c.lo + c.count - 1
        ), gone AS (
            DELETE FROM outbox_pushes p USING chosen c WHERE p.lo = c.lo RETURNING p.count
        )
        SELECT coalesce(sum(count), 0)::bigint FROM gone
        """
}

extension PostgresConnection {
    /// Makes the next statement of the open transaction read pending rows through their partial index
    /// (`outbox_due`, whose predicate `due IS NOT NULL` holds exactly for queued and in-flight rows;
    /// `webhook_events_due` for pending and in-flight events), in one process: the planner's statistics of a
    /// queue lag far behind it, and with them it scanned the whole table (every final row kept, and their dead
    /// versions) in parallel workers, 40-70 ms at 300,000 outbox rows, for a handful of pending ones.
    /// The live ranges (`outbox_segments`, one row per pending enqueue) are read whole.
    func readPendingRowsByIndex() {
        executeWithNext("SET LOCAL enable_seqscan = off")
        executeWithNext("SET LOCAL enable_bitmapscan = off")
        executeWithNext("SET LOCAL max_parallel_workers_per_gather = 0")
        withoutJIT()
    }
}
