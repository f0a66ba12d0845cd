public import Foundation
public import PushStore
import SQLiteDriver

/// `OutboxRepository` on a `SQLiteDatabase`: the outbox tables `outbox_items` (what never changes after
/// enqueue) and `outbox_state` (what claim and complete rewrite), sharing `seq`. Every outbox statement is
/// in this type and its extensions (`+Enqueue`, `+Claim`, `+Complete`); rows are read through
/// `SQLiteOutboxColumn`.
public struct SQLiteOutboxRepository: OutboxRepository {
    /// The database holding the tables.
    public let database: SQLiteDatabase
    /// The retry schedule used by `complete` for retryable outcomes.
    public let retryPolicy: OutboxRetryPolicy

    /// The outbox in `database`, retrying by `retryPolicy`.
    public init(database: SQLiteDatabase, retryPolicy: OutboxRetryPolicy = .default) {
        self.database = database
        self.retryPolicy = retryPolicy
    }

    /// See `OutboxRepository.recoverInFlight`.
    @discardableResult
    public func recoverInFlight() async throws -> Int {
        try await database.perform { try Self.requeueInFlight($0) }
    }

    /// Puts every in-flight row back to queued (after a crash mid-send); returns how many.
    static func requeueInFlight(_ db: SQLiteConnection) throws -> Int {
        try db.run("UPDATE outbox_state SET state = 'queued' WHERE state = 'in_flight'")
    }

    /// See `OutboxRepository.item(id:)`.
    public func item(id: String) async throws -> OutboxItem? {
        try await database.perform { try Self.item(id: id, $0) }
    }

    static func item(id: String, _ db: SQLiteConnection) throws -> OutboxItem? {
        try db.query("\(SQLiteOutboxColumn.select) WHERE i.id = ?1", [.text(id)]) { SQLiteOutboxColumn.item($0) }.first
    }

    /// See `OutboxRepository.items(pushID:)`.
    public func items(pushID: String) async throws -> [OutboxItem] {
        try await database.perform { db in
            try db.query("\(SQLiteOutboxColumn.select) WHERE i.push_id = ?1 ORDER BY i.seq", [.text(pushID)]) {
                SQLiteOutboxColumn.item($0)
            }
        }
    }

    /// Every row, in enqueue order: for audits that reconcile the whole outbox (the chaos harness), not
    /// for serving requests.
    public func allItems() async throws -> [OutboxItem] {
        try await database.perform { db in
            try db.query("\(SQLiteOutboxColumn.select) ORDER BY i.seq") { SQLiteOutboxColumn.item($0) }
        }
    }

    /// See `OutboxRepository.counts`: one pass over the state table with a count per state. (`GROUP BY
    /// state` sorted every row into a temporary B-tree first, which took twice as long.)
    public func counts() async throws -> [OutboxState: Int] {
        let counts = try await database.perform { db in
            try db.query(Self.countsSQL) { row in OutboxState.allCases.indices.map { row.int(at: Int32($0)) } }.first
        }
        return Dictionary(uniqueKeysWithValues: OutboxState.allCases.enumerated().map { ($0.element, counts?[$0.offset] ?? 0) })
    }

    private static let countsSQL =
        "SELECT "
        + OutboxState.allCases.map { "count(*) FILTER (WHERE state = '\($0.rawValue)')" }.joined(separator: ", ")
        + " FROM outbox_state"

    /// See `OutboxRepository.pendingCounts`: queued rows counted in `outbox_queue`, in-flight ones in
    /// `outbox_in_flight`, the partial indexes that hold just those.
    public func pendingCounts() async throws -> [OutboxState: Int] {
        let counts = try await database.perform { db in
            try db.query(Self.pendingCountsSQL) { [$0.int(at: 0), $0.int(at: 1)] }.first
        }
        return [.queued: counts?[0] ?? 0, .inFlight: counts?[1] ?? 0]
    }

    static let pendingCountsSQL = """
        SELECT (SELECT count(*) FROM outbox_state INDEXED BY outbox_queue WHERE state = 'queued'),
               (SELECT count(*) FROM outbox_state INDEXED BY outbox_in_flight WHERE state = 'in_flight')
        """

    /// See `OutboxRepository.depth`: the pending counts' sum.
    public func depth() async throws -> Int {
        try await pendingCounts().values.reduce(0, +)
    }

    /// See `OutboxRepository.oldestPendingEnqueuedAt`. Rows are numbered in enqueue order, so the lowest
    /// pending `seq` is the oldest one: the lowest of the queued rows (read from `outbox_queue`, whose entries
    /// carry their `seq`) and of the in-flight rows (the first entry of `outbox_in_flight`).
    public func oldestPendingEnqueuedAt() async throws -> Date? {
        try await database.perform { db in
            try db.query(Self.oldestPendingSQL) { Date(storeMillis: $0.int64(at: 0)) }.first
        }
    }

    /// (`INDEXED BY`: for `min(seq)` SQLite would otherwise walk the table in `seq` order, its rowid, through
    /// every final row older than the first pending one.)
    static let oldestPendingSQL = """
        SELECT i.created_at FROM outbox_items i
        WHERE i.seq = (SELECT min(first) FROM (
            SELECT min(seq) AS first FROM outbox_state INDEXED BY outbox_queue WHERE state = 'queued'
            UNION ALL
            SELECT min(seq) FROM outbox_state INDEXED BY outbox_in_flight WHERE state = 'in_flight'))
        """

    /// See `OutboxRepository.purge(olderThan:limit:)`: one transaction per batch. Final rows are found from
    /// the oldest `seq` on, where they gather, so a batch reads little more than what it deletes.
    @discardableResult
    public func purge(olderThan date: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await database.write { db in
            let seqs = try db.query(
                """
                DELETE FROM outbox_state WHERE seq IN (SELECT seq FROM outbox_state
                    WHERE state IN ('accepted', 'rejected', 'failed', 'expired') AND updated_at < ?1
                    ORDER BY seq LIMIT ?2)
                RETURNING seq
                """, [.integer(date.storeMillis), .integer(Int64(limit))]
            ) { $0.int64(at: 0) }
            guard let low = seqs.min(), let high = seqs.max() else { return 0 }
            // Their items in one statement: those in the batch's range whose state row is gone (an item
            // has one from its enqueue until this purge). One DELETE per row took a quarter longer a row.
            try db.run(
                """
                DELETE FROM outbox_items WHERE seq BETWEEN ?1 AND ?2
                    AND NOT EXISTS (SELECT 1 FROM outbox_state s WHERE s.seq = outbox_items.seq)
                """, [.integer(low), .integer(high)])
            return seqs.count
        }
    }
}
