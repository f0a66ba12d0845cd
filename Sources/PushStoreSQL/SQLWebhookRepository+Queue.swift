import Foundation
import PushStore

extension SQLWebhookRepository {
    /// See `WebhookRepository.claim`: due pending rows and in-flight rows whose lease ran out (their process
    /// or instance died), oldest first, go in flight with the lease deadline as their `next_attempt_at`, the
    /// attempt counted. On PostgreSQL the rows name this instance (`SQLDatabase.claimOwner`) and are read
    /// `FOR UPDATE SKIP LOCKED`: instances claiming at once never take the same row.
    func claim(endpointID: String, limit: Int, lease: Duration, now: Date) async throws -> [WebhookDelivery] {
        guard limit > 0 else { return [] }
        let leaseMillis = Int64((lease / .milliseconds(1)).rounded())
        let owner = database.claimOwner
        let nowValue = database.now(now)
        return try await database.inTransaction { db in
            // Due times and lease deadlines on the database's clock on PostgreSQL (`SQLDialect.now`).
            let now = db.dialect.now("?2")
            return try db.query(
                """
                UPDATE webhook_events SET state = 'in_flight', attempts = attempts + 1,
                    next_attempt_at = \(now) + ?4::bigint\(owner == nil ? "" : ", owner = ?5"), updated_at = \(now)
                WHERE seq IN (SELECT seq FROM webhook_events
                    WHERE endpoint_id = ?1 AND state IN ('pending', 'in_flight') AND next_attempt_at <= \(now)
                    ORDER BY next_attempt_at, seq LIMIT ?3\(db.dialect.forUpdateSkipLocked))
                RETURNING \(EventColumn.selectList)
                """,
                [.text(endpointID), nowValue, .integer(limit), .integer(leaseMillis)] + (owner.map { [.text($0)] } ?? []),
                row: WebhookDelivery.init(row:)
            ).sorted { $0.createdAt < $1.createdAt }
        }
    }

    /// See `WebhookRepository.complete`: one transaction; stale attempts change nothing.
    func complete(_ attempts: [WebhookAttempt], retry: WebhookRetryPolicy, now: Date) async throws {
        guard !attempts.isEmpty else { return }
        let policy = retry
        try await database.inTransaction { db in
            let millis = now.storeMillis
            let release = db.dialect.namesClaimOwner ? "owner = NULL, " : ""
            for attempt in attempts {
                let key: [SQLValue] = [.text(attempt.endpointID), .text(attempt.eventID), .integer(attempt.attempt)]
                if attempt.delivered {
                    try db.run(
                        """
                        UPDATE webhook_events SET state = 'delivered', last_status = ?4, \(release)updated_at = ?5
                        WHERE endpoint_id = ?1 AND event_id = ?2 AND state = 'in_flight' AND attempts = ?3
                        """, key + [.integer(attempt.status), .integer(millis)])
                    continue
                }
                guard
                    let created = try db.query(
                        """
                        SELECT created_at FROM webhook_events
                        WHERE endpoint_id = ?1 AND event_id = ?2 AND state = 'in_flight' AND attempts = ?3
                        """, key, row: { $0.int64(at: 0) }
                    ).first
                else { continue }
                let (state, next) = policy.afterFailure(
                    attempts: attempt.attempt, id: attempt.eventID, createdAt: Date(storeMillis: created), now: now)
                try db.run(
                    """
                    UPDATE webhook_events SET state = ?4, next_attempt_at = ?5, last_status = ?6, last_error = ?7,
                        \(release)updated_at = ?8
                    WHERE endpoint_id = ?1 AND event_id = ?2 AND attempts = ?3
                    """,
                    key + [
                        .text(state.rawValue), .date(next), .integer(attempt.status), .text(attempt.error), .integer(millis),
                    ])
            }
        }
    }

    /// See `WebhookRepository.deliveries`.
    func deliveries(endpointID: String, failedOnly: Bool, limit: Int) async throws -> [WebhookDelivery] {
        try await database.query(
            """
            SELECT \(EventColumn.selectList) FROM webhook_events
            WHERE endpoint_id = ?1 AND (?2::bigint = 0 OR last_error IS NOT NULL)
            ORDER BY updated_at DESC, seq DESC LIMIT ?3
            """, [.text(endpointID), .integer(failedOnly ? 1 : 0), .integer(max(0, limit))],
            row: WebhookDelivery.init(row:))
    }

    /// See `WebhookRepository.counts`.
    func counts() async throws -> [WebhookDeliveryState: Int] {
        try await database.onConnection { db in
            try Self.countsByState(
                "SELECT state, count(*) FROM webhook_events GROUP BY state", zeroing: WebhookDeliveryState.allCases, db)
        }
    }

    /// See `WebhookRepository.pendingCounts`: the pending rows only, found through `webhook_events_due`
    /// (`SQLDatabase.readingPendingRows`).
    func pendingCounts() async throws -> [WebhookDeliveryState: Int] {
        try await database.readingPendingRows { db in
            try Self.countsByState(Self.pendingCountsSQL, zeroing: [.pending, .inFlight], db)
        }
    }

    static var pendingCountsSQL: String {
        """
        SELECT state, count(*) FROM webhook_events\(Database.dialect.indexedBy("webhook_events_due"))
        WHERE state IN ('pending', 'in_flight') GROUP BY state
        """
    }

    private static func countsByState(
        _ sql: String, zeroing states: [WebhookDeliveryState], _ db: some SQLSession
    ) throws -> [WebhookDeliveryState: Int] {
        StateCounts.of(try db.query(sql, []) { ($0.string(at: 0), Int($0.int64(at: 1))) }, zeroing: states)
    }

    /// See `WebhookRepository.nextDue`.
    func nextDue() async throws -> Date? {
        try await database.onConnection { db in
            try db.query("SELECT min(next_attempt_at) FROM webhook_events WHERE state IN ('pending', 'in_flight')", []) {
                $0.optionalInt64(at: 0).map(Date.init(storeMillis:))
            }.first ?? nil
        }
    }

    /// See `WebhookRepository.purge(olderThan:limit:)`.
    @discardableResult
    func purge(olderThan date: Date, limit: Int) async throws -> Int {
        try await database.purge(
            "webhook_events", key: "seq", olderThan: date, by: "updated_at", where: "state IN ('delivered', 'failed')",
            limit: limit)
    }
}
