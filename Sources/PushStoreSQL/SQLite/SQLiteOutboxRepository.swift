public import Foundation
public import PushStore
import SQLiteDriver

/// `OutboxRepository` on a `SQLiteDatabase`. A push is stored once (`SQLiteSchema.outboxPushes`): one
/// `outbox_pushes` row per run of enqueued items (`OutboxPushRun`), its notifications numbered `seq`
/// `lo` … `lo + count - 1`; pending notifications are kept by the range (`outbox_ranges`); only a notification
/// that ended otherwise than accepted, was queued again for a retry, or came back with an `apns-unique-id` has
/// an outcome row (`outbox_state`, by `seq`). Every outbox statement is in this type and its extensions
/// (`+Enqueue`, `+Claim`, `+Complete`, `+Depth`, `+Read`).
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
        try await database.write { try Self.requeueInFlight($0) }
    }

    /// Puts every in-flight notification back to queued (after a crash mid-send); returns how many.
    static func requeueInFlight(_ db: SQLiteConnection) throws -> Int {
        let inRanges =
            try db.query("SELECT coalesce(sum(remaining), 0) FROM outbox_ranges WHERE in_flight = 1") {
                $0.int(at: 0)
            }.first ?? 0
        try db.run("UPDATE outbox_ranges SET in_flight = 0 WHERE in_flight = 1")
        return inRanges + (try db.run("UPDATE outbox_state SET state = 'queued' WHERE state = 'in_flight'"))
    }

    /// See `OutboxRepository.item(id:)`.
    public func item(id: String) async throws -> OutboxItem? {
        try await database.perform { try Self.item(id: id, $0) }
    }

    /// See `OutboxRepository.items(pushID:)`.
    public func items(pushID: String) async throws -> [OutboxItem] {
        try await database.perform { db in
            let pushes = try db.query("\(SQLitePushSelect.all) WHERE p.push_id = ?1 ORDER BY p.lo", [.text(pushID)]) {
                OutboxPushRecord($0)
            }
            return try pushes.flatMap { try Self.notifications(of: $0, db) }
        }
    }

    /// Every notification, in enqueue order: for audits that reconcile the whole outbox (the chaos harness),
    /// not for serving requests.
    public func allItems() async throws -> [OutboxItem] {
        try await database.perform { db in
            let pushes = try db.query("\(SQLitePushSelect.all) ORDER BY p.lo") { OutboxPushRecord($0) }
            return try pushes.flatMap { try Self.notifications(of: $0, db) }
        }
    }

    /// See `OutboxRepository.counts`: pending notifications from the ranges, the others from the outcome rows;
    /// accepted ones without a row are what is left of the pushes' counts.
    public func counts() async throws -> [OutboxState: Int] {
        try await database.perform { db in
            let pending = try Self.pendingCounts(db)
            let rows = try db.query(Self.outcomeCountsSQL) { row in (0..<4).map { row.int(at: Int32($0)) } }.first ?? [0, 0, 0, 0]
            let total = try db.query("SELECT coalesce(sum(count), 0) FROM outbox_pushes") { $0.int(at: 0) }.first ?? 0
            let (queued, inFlight) = (pending[.queued] ?? 0, pending[.inFlight] ?? 0)
            let (rejected, failed, expired) = (rows[1], rows[2], rows[3])
            return [
                .queued: queued, .inFlight: inFlight, .rejected: rejected, .failed: failed, .expired: expired,
                .accepted: total - queued - inFlight - rejected - failed - expired,
            ]
        }
    }

    /// Outcome rows per final state (accepted, rejected, failed, expired), in one pass.
    private static let outcomeCountsSQL =
        "SELECT "
        + ["accepted", "rejected", "failed", "expired"].map { "count(*) FILTER (WHERE state = '\($0)')" }.joined(separator: ", ")
        + " FROM outbox_state"

    /// See `OutboxRepository.pendingCounts`: the ranges' remaining notifications, and the outcome rows queued
    /// or in flight (read from `outbox_queue` and `outbox_in_flight`, the partial indexes holding just those).
    public func pendingCounts() async throws -> [OutboxState: Int] {
        try await database.perform { try Self.pendingCounts($0) }
    }

    static func pendingCounts(_ db: SQLiteConnection) throws -> [OutboxState: Int] {
        let counts = try db.query(pendingCountsSQL) { [$0.int(at: 0), $0.int(at: 1)] }.first
        return [.queued: counts?[0] ?? 0, .inFlight: counts?[1] ?? 0]
    }

    static let pendingCountsSQL = """
        SELECT (SELECT count(*) FROM outbox_state INDEXED BY outbox_queue WHERE state = 'queued')
                   + (SELECT coalesce(sum(remaining), 0) FROM outbox_ranges WHERE in_flight = 0),
               (SELECT count(*) FROM outbox_state INDEXED BY outbox_in_flight WHERE state = 'in_flight')
                   + (SELECT coalesce(sum(remaining), 0) FROM outbox_ranges WHERE in_flight = 1)
        """

    /// See `OutboxRepository.depth`: the pending counts' sum.
    public func depth() async throws -> Int {
        try await pendingCounts().values.reduce(0, +)
    }

    /// See `OutboxRepository.oldestPendingEnqueuedAt`. Notifications are numbered in enqueue order, so the
    /// lowest pending `seq` is the oldest one: the first pending one of the lowest range, or the lowest of the
    /// outcome rows queued or in flight (from `outbox_queue` and `outbox_in_flight`).
    public func oldestPendingEnqueuedAt() async throws -> Date? {
        try await database.perform { db in
            let range = try db.query("SELECT \(SQLiteOutboxRange.columns) FROM outbox_ranges ORDER BY lo LIMIT 1") {
                SQLiteOutboxRange($0).firstPending
            }.first
            let row = try db.query(Self.oldestPendingRowSQL) { $0.optionalInt64(at: 0) }.first ?? nil
            guard let seq = [range, row].compactMap({ $0 }).min() else { return nil }
            return try db.query("SELECT created_at FROM outbox_pushes WHERE lo <= ?1 ORDER BY lo DESC LIMIT 1", [.integer(seq)]) {
                Date(storeMillis: $0.int64(at: 0))
            }.first
        }
    }

    /// (`INDEXED BY`: for `min(seq)` SQLite would otherwise walk the table in `seq` order, its rowid, through
    /// every final row older than the first pending one.)
    static let oldestPendingRowSQL = """
        SELECT min(first) FROM (
            SELECT min(seq) AS first FROM outbox_state INDEXED BY outbox_queue WHERE state = 'queued'
            UNION ALL
            SELECT min(seq) FROM outbox_state INDEXED BY outbox_in_flight WHERE state = 'in_flight')
        """

    /// See `OutboxRepository.purge(olderThan:limit:)`: one transaction per batch. Whole pushes go, oldest
    /// first, with their outcome rows: those none of whose notifications is pending (no live range covers
    /// them, no outcome row is queued or in flight) and that last changed (`settled_at`, their outcome rows)
    /// before `date`. Returns the notifications deleted: at least one push's when any qualifies, and no push
    /// is added once `limit` is reached.
    @discardableResult
    public func purge(olderThan date: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        let deleted = try await database.write { db in
            let cutoff = date.storeMillis
            let candidates = try db.statement(
                """
                SELECT p.lo, p.count FROM outbox_pushes p LEFT JOIN outbox_settled t ON t.lo = p.lo
                WHERE coalesce(t.settled_at, p.created_at) < ?1 ORDER BY p.lo
                """)
            defer { candidates.reset() }
            try candidates.bind(cutoff, at: 1)
            var purged: [(lo: Int64, hi: Int64)] = []
            var deleted = 0
            while deleted < limit, try candidates.step() {
                let (lo, count) = (candidates.int64(at: 0), candidates.int(at: 1))
                let hi = lo + Int64(count) - 1
                // Ranges do not overlap: only the last one starting at or before `hi` can cover the push.
                let live =
                    try db.query("SELECT hi FROM outbox_ranges WHERE lo <= ?1 ORDER BY lo DESC LIMIT 1", [.integer(hi)]) {
                        $0.int64(at: 0) >= lo
                    }.first ?? false
                if live { continue }
                let (pending, changed) = try db.query(
                    """
                    SELECT count(*) FILTER (WHERE state IN ('queued', 'in_flight')), coalesce(max(updated_at), 0)
                    FROM outbox_state WHERE seq BETWEEN ?1 AND ?2
                    """, [.integer(lo), .integer(hi)]
                ) { ($0.int(at: 0), $0.int64(at: 1)) }[0]
                if pending > 0 || changed >= cutoff { continue }
                purged.append((lo, hi))
                deleted += count
            }
            candidates.reset()
            for (lo, hi) in purged {
                try db.run("DELETE FROM outbox_state WHERE seq BETWEEN ?1 AND ?2", [.integer(lo), .integer(hi)])
                try db.run("DELETE FROM outbox_pushes WHERE lo = ?1", [.integer(lo)])
                try db.run("DELETE FROM outbox_settled WHERE lo = ?1", [.integer(lo)])
            }
            return deleted
        }
        // The pages they held go back to the file system, after the purge committed and at best: a full disk
        // must not cost the purge that frees it.
        if deleted > 0 { try? await database.perform { try $0.releaseFreePages() } }
        return deleted
    }
}
