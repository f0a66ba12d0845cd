public import Foundation
import PostgresDriver
public import PushStore

/// `OutboxRepository` on a `PostgresDatabase` shared by several instances: the tables `outbox_items` (what
/// each row sends, written once) and `outbox_state` (what its claims and completions change), one row each
/// per notification under the same `id` (`PostgresSchema.outboxSplit`).
///
/// Claims are leases: a claimed row records this instance (`PostgresDatabase.instanceID`) and a deadline
/// `lease` after the claim; any instance claims it again once the deadline has passed (its owner died),
/// never before. Every claim counts an attempt, and `complete` writes an outcome only while the row is
/// still in flight under that attempt (the fence). Enqueues `NOTIFY` every instance's listener
/// (`PostgresDatabase.waitForOutbox`). Enqueue, claim and completion are one statement per batch each.
/// Statements are in this type and its extensions (`+Enqueue`, `+Claim`, `+Complete`); rows are read
/// through `PostgresOutboxColumn`.
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
        try await database.withConnection { db in
            try db.query("\(PostgresOutboxColumn.select) WHERE i.id = $1", [.text(id)]).map(PostgresOutboxColumn.item).first
        }
    }

    /// See `OutboxRepository.items(pushID:)`.
    public func items(pushID: String) async throws -> [OutboxItem] {
        try await database.withConnection { db in
            try db.query("\(PostgresOutboxColumn.select) WHERE i.push_id = $1 ORDER BY i.seq", [.text(pushID)])
                .map(PostgresOutboxColumn.item)
        }
    }

    /// A query counting the live ranges whose `remaining` disagrees with their rows that have no state row
    /// yet (`PostgresSchema.outboxSegments`): 0 in a consistent outbox. For audits (the chaos run) and tests.
    public static let miscountedRangesSQL = """
        SELECT count(*) FROM outbox_segments g WHERE g.remaining <> (SELECT count(*) FROM outbox_items i
            WHERE i.seq BETWEEN g.lo AND g.hi AND NOT EXISTS (SELECT 1 FROM outbox_state r WHERE r.seq = i.seq))
        """

    /// Every row, in enqueue order: for audits that reconcile the whole outbox, not for serving requests.
    public func allItems() async throws -> [OutboxItem] {
        try await database.withConnection { db in
            try db.query("\(PostgresOutboxColumn.select) ORDER BY i.seq").map(PostgresOutboxColumn.item)
        }
    }

    /// See `OutboxRepository.counts`.
    public func counts() async throws -> [OutboxState: Int] {
        try await database.countsByState(Self.countsSQL(stateRows: "outbox_state"), zeroing: OutboxState.allCases)
    }

    /// Counts by state of the state rows in `stateRows` (the table, or a filtered selection of it) and of
    /// the rows of live ranges (`PostgresSchema.outboxSegments`), which are all pending.
    static func countsSQL(stateRows: String) -> String {
        """
        SELECT state, sum(n)::bigint FROM (
            SELECT state, count(*) AS n FROM \(stateRows) s GROUP BY state
            UNION ALL
            SELECT CASE WHEN owner IS NULL THEN 'queued' ELSE 'in_flight' END, sum(remaining) FROM outbox_segments
            GROUP BY owner IS NULL
        ) c GROUP BY state
        """
    }

    /// See `OutboxRepository.pendingCounts`: the pending rows only, found through `outbox_due`.
    public func pendingCounts() async throws -> [OutboxState: Int] {
        try await database.countsByState(Self.pendingCountsSQL, zeroing: [.queued, .inFlight], pendingByIndex: true)
    }

    static let pendingCountsSQL = countsSQL(stateRows: "(SELECT state FROM outbox_state WHERE due IS NOT NULL)")

    /// See `OutboxRepository.depth`: the pending counts' sum.
    public func depth() async throws -> Int {
        try await pendingCounts().values.reduce(0, +)
    }

    /// See `OutboxRepository.oldestPendingEnqueuedAt`: the lowest pending `seq` is the oldest row: the
    /// lowest of pending state rows, or the first row of the lowest live range without a state row. (`seq + 0`:
    /// ordered by `seq` itself, the planner walked the state table's primary key from the oldest final row.)
    public func oldestPendingEnqueuedAt() async throws -> Date? {
        try await database.transaction { db in
            db.readPendingRowsByIndex()
            db.joinByLookup()
            return try db.query(Self.oldestPendingSQL).map { Date(storeMillis: $0.int64(at: 0)) }.first
        }
    }

    static let oldestPendingSQL = """
        SELECT created_at FROM (
            (SELECT i.created_at, i.seq FROM outbox_items i
                WHERE i.seq = (SELECT seq FROM outbox_state WHERE due IS NOT NULL ORDER BY seq + 0 LIMIT 1))
            UNION ALL
            (SELECT i.created_at, i.seq FROM outbox_items i
                WHERE i.seq >= (SELECT min(lo) FROM outbox_segments)
                    AND NOT EXISTS (SELECT 1 FROM outbox_state r WHERE r.seq = i.seq)
                ORDER BY i.seq LIMIT 1)
        ) p ORDER BY seq LIMIT 1
        """

    /// See `OutboxRepository.purge(olderThan:limit:)`: final rows from the oldest `seq` on, from both tables
    /// in one statement.
    @discardableResult
    public func purge(olderThan date: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await database.withConnection { db in
            try db.run(
                """
                WITH gone AS (
                    DELETE FROM outbox_state WHERE seq IN (SELECT seq FROM outbox_state
                        WHERE ended_at < $1 ORDER BY seq LIMIT $2)
                    RETURNING seq
                )
                DELETE FROM outbox_items WHERE seq IN (SELECT seq FROM gone)
                """, [.integer(date.storeMillis), .integer(Int64(limit))])
        }
    }
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
