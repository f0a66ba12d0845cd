public import Foundation
import PostgresDriver
public import PushStore

extension PostgresOutboxRepository {
    /// See `OutboxRepository.complete`: one statement for the whole batch, each row's new values passed as
    /// arrays. Only rows still in flight under the outcome's claim (`attempts` equal to the completion's
    /// `attempt`) change; stale outcomes and rows not in flight are left alone and left out of the answer;
    /// when an id is listed twice, its first outcome counts. The fence also makes the retry schedule exact:
    /// the transition is computed from the completion's attempt, which is the row's. Rows whose outcome
    /// carries its claim's receipt (`OutboxReceipt`) are reached by its keys, the others by their id.
    /// A retry's due time is its back-off after now on the database's clock, like the row's change times
    /// (`PostgresClock`; `now` only under `.caller`).
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
        var seqs: [Int64?] = []
        var ranges: [Int64?] = []
        for completion in results where seen.insert(completion.id).inserted {
            let next = OutboxTransition(
                completion.result, id: completion.id, attempts: completion.attempt, policy: retryPolicy, nowMillis: millis)
            ids.append(completion.id)
            attempts.append(Int64(completion.attempt))
            states.append(next.state.rawValue)
            statuses.append(next.status.map(Int64.init))
            reasons.append(next.reason?.rawValue)
            uniqueIDs.append(next.apnsUniqueID)
            nextAttempts.append(next.nextAttemptMillis.map { $0 - millis })
            seqs.append(completion.receipt.sequence)
            ranges.append(completion.receipt.range)
        }
        guard !ids.isEmpty else { return [:] }
        let parameters: [PostgresValue] = [
            .textArray(ids), .integerArray(attempts), .textArray(states), .integerArray(statuses), .textArray(reasons),
            .textArray(uniqueIDs), .integerArray(nextAttempts), database.clock.millis(now), .integerArray(seqs),
            .integerArray(ranges),
        ]
        // Only a batch that may end rows rejected or failed writes more (their events) before it commits;
        // any other is one round trip: the transaction's start, the UPDATE and the commit go out together.
        let mayEnd = states.contains { $0 == OutboxState.rejected.rawValue || $0 == OutboxState.failed.rawValue }
        func complete(_ sql: String) async throws -> [(String, String)] {
            try await database.transaction { db in
                db.lookUpByKey()
                db.commitWithoutFlush()
                let rows = try db.query(sql, parameters, committing: !mayEnd).map { ($0.string(at: 0), $0.string(at: 1)) }
                guard mayEnd else { return rows }
                var states: [String: OutboxState] = [:]
                for (id, state) in rows { states[id] = OutboxState(rawValue: state) }
                try Self.reportEnded(OutboxEnded.rows(results, states: states), now: now, db)
                return rows
            }
        }
        // A row's outcome arriving again under the same claim (its range still live) is the one case where
        // a state row exists already: the batch rolls back whole and goes again, stepping over such rows.
        let rows: [(String, String)]
        do {
            rows = try await complete(Self.completeSQL)
        } catch let error as PostgresError where error.isUniqueViolation {
            rows = try await complete(Self.completeRepeatedSQL)
        }
        var answer: [String: OutboxState] = [:]
        for (id, state) in rows { answer[id] = OutboxState(rawValue: state) }
        return answer
    }

    /// Writes the webhook events of rows that just ended (`OutboxEnded.report`) inside the caller's transaction.
    static func reportEnded(_ ended: [OutboxEnded.Row], now: Date, _ db: PostgresConnection) throws {
        try OutboxEnded.report(ended, now: now, PostgresSession(connection: db)) { id in
            try db.query("\(PostgresOutboxColumn.select) WHERE i.id = $1", [.text(id)]).map(PostgresOutboxColumn.item).first
        }
    }

    /// The batch completion: $1 ids, $2 attempts (the fences), $3 states, $4 statuses, $5 reasons, $6
    /// apns-unique-ids (NULL keeps the stored one), $7 back-offs, the next attempt times in ms after now (NULL
    /// keeps the stored one), $8 now (ms; NULL: the database's, `PostgresClock`),
    /// $9 and $10 the receipts' `seq` and range (NULL without a receipt; a NULL range with a `seq`: claimed on
    /// its own). Returns the id and new state of each row changed.
    ///
    /// - Each row's claim is found first (`t`): from its receipt, or from its id (its `seq`, its state row if
    ///   it has one, else the live range covering it). Looking the row up costs twice what writing its outcome
    ///   does (an index probe by a random text id, one for its state row, one for its range: 12 µs of 22 per
    ///   row in a batch of 1,000), which is why claims hand out receipts.
    /// - A row claimed on its own changes its state row (`UPDATE`) while it is in flight under the outcome's
    ///   attempt. A finished or re-queued row gives up its lease; a re-queued one is due again at its next
    ///   attempt, a finished one leaves `outbox_due` for `outbox_ended`.
    /// - A row claimed with a range gets its state row (`INSERT`) while the range still holds it (a range cut
    ///   since, after its lease ran out, no longer does) and is in flight under the outcome's attempt; the
    ///   range is counted down (`countDownSQL`). The ranges are locked first (`FOR UPDATE`, in `lo` order): the
    ///   fence is read from the lock's row version, which is the newest (a claim that took a range over
    ///   committed before the lock is seen), and no claim takes the range until this commits. A row that has
    ///   its state row already (its outcome came before) breaks the statement on the state table's key, and
    ///   `completeRepeatedSQL` runs instead. A final row's state row leaves `expiration` empty: only claims
    ///   read it, and they read pending rows.
    ///
    /// The fence compares with values of the batch (`t.fence` is 'in_flight' for every row), not with a
    /// constant: a constant would give the planner its estimate of in-flight rows, which lags far behind a
    /// queue (often 1 row when thousands are in flight), and with it the planner chose to scan the in-flight
    /// rows once per completed row (380 ms for 1,000).
    static let completeSQL = completeSQL(onConflict: "")

    /// `completeSQL` for a batch with outcomes that came before under the same claim: a row that has its state
    /// row keeps it and is not counted (`ON CONFLICT DO NOTHING`, a speculative insertion, which costs a third
    /// more per row than a plain one: 3-4 µs).
    static let completeRepeatedSQL = completeSQL(onConflict: "ON CONFLICT (seq) DO NOTHING")

    private static func completeSQL(onConflict: String) -> String {
        """
        WITH v AS MATERIALIZED (
            SELECT v.id, v.attempt, v.state, v.status, v.reason, v.unique_id,
                \(PostgresClock.millis("$8")) + v.next_attempt AS next_attempt, v.seq, v.lo, 'in_flight'::text AS fence
            FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bigint[],
                $9::bigint[], $10::bigint[]) AS v(id, attempt, state, status, reason, unique_id, next_attempt, seq, lo)
        ), t AS MATERIALIZED (
            SELECT * FROM v WHERE v.seq IS NOT NULL
            UNION ALL
            SELECT v.id, v.attempt, v.state, v.status, v.reason, v.unique_id, v.next_attempt, i.seq,
                CASE WHEN r.seq IS NULL THEN g.lo END, v.fence
            FROM v JOIN outbox_items i ON i.id = v.id
            LEFT JOIN outbox_state r ON r.seq = i.seq
            LEFT JOIN LATERAL \(PostgresOutboxColumn.rangeAtOrBefore("i.seq", if: "r.seq IS NULL")) ON g.hi >= i.seq
            WHERE v.seq IS NULL
        ), locked AS MATERIALIZED (
            SELECT lo, hi, claims, owner, due FROM outbox_segments
            WHERE lo = ANY (ARRAY(SELECT DISTINCT lo FROM t WHERE lo IS NOT NULL))
            ORDER BY lo FOR UPDATE
        ), inserted AS (
            INSERT INTO outbox_state (id, seq, state, attempts, next_attempt_at, expiration, last_status, last_reason,
                apns_unique_id, updated_at, due, ended_at)
            SELECT c.id, c.seq, c.state, c.attempt, coalesce(c.next_attempt, l.due),
                CASE WHEN c.state = 'queued' THEN (SELECT i.expiration FROM outbox_items i WHERE i.seq = c.seq) END,
                c.status, c.reason, c.unique_id, \(PostgresClock.millis("$8")),
                CASE WHEN c.state = 'queued' THEN coalesce(c.next_attempt, l.due) END,
                CASE WHEN c.state = 'queued' THEN NULL ELSE \(PostgresClock.millis("$8")) END
            FROM t c JOIN locked l ON l.lo = c.lo
            WHERE c.seq BETWEEN l.lo AND l.hi AND l.owner IS NOT NULL AND l.claims = c.attempt
            \(onConflict)
            RETURNING id, state, seq
        )\(countDownSQL(settled: "SELECT l.lo FROM inserted JOIN locked l ON inserted.seq BETWEEN l.lo AND l.hi")), updated AS (
            UPDATE outbox_state s SET state = t.state, last_status = t.status, last_reason = t.reason,
                apns_unique_id = coalesce(t.unique_id, s.apns_unique_id),
                next_attempt_at = coalesce(t.next_attempt, s.next_attempt_at),
                owner = NULL, lease_until = NULL, updated_at = \(PostgresClock.millis("$8")),
                due = CASE WHEN t.state = 'queued' THEN coalesce(t.next_attempt, s.next_attempt_at) END,
                ended_at = CASE WHEN t.state = 'queued' THEN NULL ELSE \(PostgresClock.millis("$8")) END
            FROM t
            WHERE t.lo IS NULL AND s.seq = t.seq AND s.attempts = t.attempt AND s.state = t.fence
            RETURNING t.id, s.state
        )
        SELECT id, state FROM inserted UNION ALL SELECT id, state FROM updated
        """
    }
}
