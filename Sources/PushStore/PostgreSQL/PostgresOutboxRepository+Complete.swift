public import Foundation

extension PostgresOutboxRepository {
    /// See `OutboxRepository.complete`: one UPDATE for the whole batch, each row's new values passed as
    /// arrays and joined by id. Only rows still in flight under the outcome's claim (`attempts` equal to
    /// the completion's `attempt`) change; stale outcomes and rows not in flight are left alone and left
    /// out of the answer; when an id is listed twice, its first outcome counts. The fence also makes the
    /// retry schedule exact: the transition is computed from the completion's attempt, which is the row's.
    @discardableResult
    public func complete(_ results: [OutboxCompletion], now: Date) async throws -> [String: OutboxState] {
        let millis = now.storeMillis
        var seen = Set<String>(minimumCapacity: results.count)
        var ids: [String?] = []
        var attempts: [Int64?] = []
        var states: [String?] = []
        var statuses: [Int64?] = []
        var reasons: [String?] = []
        var uniqueIDs: [String?] = []
        var nextAttempts: [Int64?] = []
        for completion in results where seen.insert(completion.id).inserted {
            let next = OutboxTransition(
                completion.result, id: completion.id, attempts: completion.attempt, policy: retryPolicy, nowMillis: millis)
            ids.append(completion.id)
            attempts.append(Int64(completion.attempt))
            states.append(next.state.rawValue)
            statuses.append(next.status.map(Int64.init))
            reasons.append(next.reason)
            uniqueIDs.append(next.apnsUniqueID)
            nextAttempts.append(next.nextAttemptMillis)
        }
        guard !ids.isEmpty else { return [:] }
        let parameters: [PostgresValue] = [
            .textArray(ids), .integerArray(attempts), .textArray(states), .integerArray(statuses), .textArray(reasons),
            .textArray(uniqueIDs), .integerArray(nextAttempts), .integer(millis),
        ]
        // Only a batch that may end rows rejected or failed writes more (their events) before it commits;
        // any other is one round trip: the transaction's start, the UPDATE and the commit go out together.
        let mayEnd = states.contains { $0 == OutboxState.rejected.rawValue || $0 == OutboxState.failed.rawValue }
        let rows = try await database.transaction { db in
            db.lookUpByKey()
            let rows = try db.query(Self.completeSQL, parameters, committing: !mayEnd).map { ($0.string(at: 0), $0.string(at: 1)) }
            guard mayEnd else { return rows }
            let ended = rows.compactMap { $0.1 == OutboxState.rejected.rawValue || $0.1 == OutboxState.failed.rawValue ? $0.0 : nil }
            try Self.reportEnded(ended, now: now, db)
            return rows
        }
        var answer: [String: OutboxState] = [:]
        for (id, state) in rows { answer[id] = OutboxState(rawValue: state) }
        return answer
    }

    /// Writes the webhook events of rows that just ended rejected, failed or expired, inside the caller's
    /// transaction: nothing is read unless an endpoint subscribes to the row's outcome.
    static func reportEnded(_ ids: [String], now: Date, _ db: PostgresConnection) throws {
        guard !ids.isEmpty else { return }
        let subscribers = try PostgresWebhookRepository.subscribers(db)
        guard !subscribers.isEmpty else { return }
        var events: [WebhookEvent] = []
        for id in ids {
            guard
                let item = try db.query("\(PostgresOutboxColumn.select) WHERE i.id = $1", [.text(id)])
                    .map(PostgresOutboxColumn.item).first,
                let event = WebhookEvents.notification(
                    item, state: item.state, status: item.lastStatus, reason: item.lastReason, now: now),
                subscribers.wants(event.type)
            else { continue }
            events.append(event)
        }
        try PostgresWebhookRepository.record(events, subscribers: subscribers, db)
    }

    /// The batch completion: $1 ids, $2 attempts (the fences), $3 states, $4 statuses, $5 reasons, $6
    /// apns-unique-ids (NULL keeps the stored one), $7 next attempt times (NULL keeps the stored one), $8 now.
    /// Returns the id and new state of each row changed.
    ///
    /// - A row with a state row changes it (`UPDATE`) while it is in flight under the outcome's attempt. A
    ///   finished or re-queued row gives up its lease; a re-queued one is due again at its next attempt, a
    ///   finished one leaves `outbox_due` for `outbox_ended`.
    /// - A row without one gets it (`INSERT`) while the range covering it is in flight under the outcome's
    ///   attempt; the range is counted down (`countDownSQL`). The ranges are locked first (`FOR UPDATE`, in
    ///   `lo` order): the fence is read from the lock's row version, which is the newest (a claim that took
    ///   a range over committed before the lock is seen), and no claim takes the range until this commits.
    ///
    /// Rows are reached from the batch by primary key. The fence compares with values of the batch (`t.fence`
    /// is 'in_flight' for every row), not with a constant: a constant would give the planner its estimate of
    /// in-flight rows, which lags far behind a queue (often 1 row when thousands are in flight), and with it
    /// the planner chose to scan the in-flight rows once per completed row (380 ms for 1,000).
    static let completeSQL = """
        WITH t AS MATERIALIZED (
            SELECT v.*, 'in_flight'::text AS fence, i.seq, i.expiration, r.seq IS NOT NULL AS has_state
            FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bigint[])
                AS v(id, attempt, state, status, reason, unique_id, next_attempt)
            JOIN outbox_items i ON i.id = v.id
            LEFT JOIN outbox_state r ON r.seq = i.seq
        ), covered AS MATERIALIZED (
            SELECT t.*, g.lo FROM t CROSS JOIN LATERAL \(PostgresOutboxColumn.rangeAtOrBefore("t.seq"))
            WHERE NOT t.has_state AND g.hi >= t.seq
        ), locked AS MATERIALIZED (
            SELECT lo, hi, claims, owner, due FROM outbox_segments WHERE lo = ANY (ARRAY(SELECT DISTINCT lo FROM covered))
            ORDER BY lo FOR UPDATE
        ), inserted AS (
            INSERT INTO outbox_state (id, seq, state, attempts, next_attempt_at, expiration, last_status, last_reason,
                apns_unique_id, updated_at, due, ended_at)
            SELECT c.id, c.seq, c.state, c.attempt, coalesce(c.next_attempt, l.due), c.expiration, c.status, c.reason,
                c.unique_id, $8, CASE WHEN c.state = 'queued' THEN coalesce(c.next_attempt, l.due) END,
                CASE WHEN c.state = 'queued' THEN NULL ELSE $8::bigint END
            FROM covered c JOIN locked l ON l.lo = c.lo
            WHERE c.seq <= l.hi AND l.owner IS NOT NULL AND l.claims = c.attempt
            ON CONFLICT (seq) DO NOTHING
            RETURNING id, state, seq
        )\(countDownSQL(settled: "SELECT l.lo FROM inserted JOIN locked l ON inserted.seq BETWEEN l.lo AND l.hi")), updated AS (
            UPDATE outbox_state s SET state = t.state, last_status = t.status, last_reason = t.reason,
                apns_unique_id = coalesce(t.unique_id, s.apns_unique_id),
                next_attempt_at = coalesce(t.next_attempt, s.next_attempt_at),
                owner = NULL, lease_until = NULL, updated_at = $8,
                due = CASE WHEN t.state = 'queued' THEN coalesce(t.next_attempt, s.next_attempt_at) END,
                ended_at = CASE WHEN t.state = 'queued' THEN NULL ELSE $8::bigint END
            FROM t
            WHERE t.has_state AND s.seq = t.seq AND s.attempts = t.attempt AND s.state = t.fence
            RETURNING t.id, s.state
        )
        SELECT id, state FROM inserted UNION ALL SELECT id, state FROM updated
        """
}
