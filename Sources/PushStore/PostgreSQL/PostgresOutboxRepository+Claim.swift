public import Foundation

extension PostgresOutboxRepository {
    /// See `OutboxRepository.claim`: in one transaction, first in-flight rows whose lease has run out (their
    /// owner died) and queued rows due at `now` (earliest due first), up to `limit` in all, go in flight
    /// under this instance's lease, counting the attempt; rows whose expiration has passed become `expired`
    /// instead. Rows are picked with `FOR UPDATE SKIP LOCKED`, so instances claiming at once never take the
    /// same row: each skips the rows another is taking. Both kinds are picked, changed and read back by one
    /// statement, sent in the same round trip as the transaction's start.
    public func claim(limit: Int, now: Date) async throws -> OutboxClaim {
        guard limit > 0 else { return OutboxClaim() }
        let parameters: [PostgresValue] = [
            .integer(now.storeMillis), .integer(Int64(now.timeIntervalSince1970.rounded(.down))), .integer(Int64(limit)),
            .text(database.instanceID), .integer(now.addingTimeInterval(lease / .seconds(1)).storeMillis),
        ]
        return try await database.transaction { db in
            // Walk the queue indexes in claim order. The planner's row estimates for a queue lag far behind
            // (autovacuum analyzes it now and then while it grows and drains by thousands a second); with a
            // low estimate it collects and sorts every due row to take the first `limit`, which costs time in
            // proportion to the backlog (15 ms instead of 1 ms for 1,000 of 20,000 due rows).
            db.executeWithNext("SET LOCAL enable_sort = off")
            db.executeWithNext("SET LOCAL enable_bitmapscan = off")
            db.joinByLookup()
            var claim = OutboxClaim()
            // Expired rows are reported but do not count against `limit`: pick again until it is reached
            // or a statement finds fewer rows than it asked for.
            while claim.items.count < limit {
                let page = limit - claim.items.count
                var pageParameters = parameters
                pageParameters[2] = .integer(Int64(page))
                let rows = try db.query(Self.claimSQL, pageParameters)
                Self.collect(rows, into: &claim)
                if rows.count < page { break }
            }
            try Self.reportEnded(claim.expired, now: now, db)
            return claim
        }
    }

    /// Appends the claimed rows of one statement, in claim order, to `claim`.
    private static func collect(_ rows: PostgresRows, into claim: inout OutboxClaim) {
        // RETURNING keeps no order: sort taken-over rows first, then by the order the rows were picked in.
        let picked = rows.map { row in
            (item: PostgresOutboxColumn.item(row), queued: row.int64(at: PostgresOutboxColumn.end), seq: row.int64(PostgresOutboxColumn.seq))
        }.sorted { ($0.queued, $0.item.nextAttemptAt, $0.seq) < ($1.queued, $1.item.nextAttemptAt, $1.seq) }
        for (item, _, _) in picked {
            if item.state == .expired {
                claim.expired.append(item.id)
            } else {
                claim.items.append(item)
            }
        }
    }

    /// The claim of at most $3 rows at $1 (now, ms): pending rows due at $1 (index `outbox_due`, earliest due
    /// first) that are queued, or in flight under a lease that ended before $1, up to $3 in all. Each goes in
    /// flight for owner $4 until $5 (ms), its attempt counted, or expires (`expiredCondition`, $2 the current
    /// epoch second). Returns every column of each row (`PostgresOutboxColumn`), then 0 for a row taken over
    /// and 1 for a queued one.
    ///
    /// A claim writes no indexed column (`PostgresSchema.outboxDue`): `due` stays, so the update is HOT. Rows in
    /// flight under a live lease stay in `outbox_due` too and a claim steps over those due before the rows it
    /// takes (a heap visit each, no write): at most the rows in flight, where each claimed row used to cost two
    /// index entries. An expiring row leaves the index (`due` NULL): that update is not HOT, and rare.
    static let claimSQL = """
        WITH picked AS (
            SELECT id, CASE WHEN state = 'queued' THEN 1 ELSE 0 END AS queued FROM outbox_state
            WHERE due <= $1 AND (state = 'queued' OR (state = 'in_flight' AND lease_until < $1))
            ORDER BY due, seq LIMIT $3 FOR UPDATE SKIP LOCKED
        ), claimed AS (
            UPDATE outbox_state o SET
                state = CASE WHEN \(expiredCondition) THEN 'expired' ELSE 'in_flight' END,
                last_reason = CASE WHEN \(expiredCondition) THEN 'Expired' ELSE o.last_reason END,
                attempts = CASE WHEN \(expiredCondition) THEN o.attempts ELSE o.attempts + 1 END,
                owner = CASE WHEN \(expiredCondition) THEN NULL ELSE $4::text END,
                lease_until = CASE WHEN \(expiredCondition) THEN NULL ELSE $5::bigint END,
                due = CASE WHEN \(expiredCondition) THEN NULL ELSE o.due END,
                ended_at = CASE WHEN \(expiredCondition) THEN $1::bigint ELSE NULL END,
                updated_at = $1
            FROM picked p WHERE o.id = p.id
            RETURNING o.*, p.queued
        )
        SELECT \(PostgresOutboxColumn.selectList), s.queued FROM claimed s JOIN outbox_items i ON i.id = s.id
        """

    /// SQL twin of `OutboxItem.isExpired(at:)` over `outbox_state o`, with $2 the current epoch second.
    /// Attempts are the count before this claim. A row expiring at second E is still sent during second E.
    private static let expiredCondition =
        "((o.expiration > 0 AND o.expiration < $2) OR (o.expiration = 0 AND o.attempts > 0))"
}
