public import Foundation
public import PushStore
import SQLiteDriver

extension SQLiteWebhookRepository {
    /// See `WebhookRepository.claim`: due pending rows and in-flight rows whose lease ran out, oldest first,
    /// go in flight with the lease deadline as their `next_attempt_at`, the attempt counted.
    public func claim(endpointID: String, limit: Int, lease: Duration, now: Date) async throws -> [WebhookDelivery] {
        guard limit > 0 else { return [] }
        let leaseMillis = Int64((lease / .milliseconds(1)).rounded())
        return try await database.write { db in
            try db.query(
                """
                UPDATE webhook_events SET state = 'in_flight', attempts = attempts + 1, next_attempt_at = ?2 + ?4,
                    updated_at = ?2
                WHERE seq IN (SELECT seq FROM webhook_events
                    WHERE endpoint_id = ?1 AND state IN ('pending', 'in_flight') AND next_attempt_at <= ?2
                    ORDER BY next_attempt_at, seq LIMIT ?3)
                RETURNING \(EventColumn.selectList)
                """, [.text(endpointID), .integer(now.storeMillis), .integer(Int64(limit)), .integer(leaseMillis)],
                row: Self.delivery
            ).sorted { $0.createdAt < $1.createdAt }
        }
    }

    /// See `WebhookRepository.complete`: one transaction; stale attempts change nothing.
    public func complete(_ attempts: [WebhookAttempt], retry: WebhookRetryPolicy, now: Date) async throws {
        guard !attempts.isEmpty else { return }
        let policy = retry
        try await database.write { db in
            let millis = now.storeMillis
            for attempt in attempts {
                let key: [SQLiteValue] = [.text(attempt.endpointID), .text(attempt.eventID), .integer(Int64(attempt.attempt))]
                if attempt.delivered {
                    try db.run(
                        """
                        UPDATE webhook_events SET state = 'delivered', last_status = ?4, updated_at = ?5
                        WHERE endpoint_id = ?1 AND event_id = ?2 AND state = 'in_flight' AND attempts = ?3
                        """, key + [attempt.status.map { .integer(Int64($0)) } ?? .null, .integer(millis)])
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
                        updated_at = ?8
                    WHERE endpoint_id = ?1 AND event_id = ?2 AND attempts = ?3
                    """,
                    key + [
                        .text(state.rawValue), .integer(next.storeMillis),
                        attempt.status.map { .integer(Int64($0)) } ?? .null, attempt.error.map { .text($0) } ?? .null,
                        .integer(millis),
                    ])
            }
        }
    }

    /// See `WebhookRepository.deliveries`.
    public func deliveries(endpointID: String, failedOnly: Bool, limit: Int) async throws -> [WebhookDelivery] {
        try await database.perform { db in
            try db.query(
                """
                SELECT \(EventColumn.selectList) FROM webhook_events
                WHERE endpoint_id = ?1 AND (?2 = 0 OR last_error IS NOT NULL)
                ORDER BY updated_at DESC, seq DESC LIMIT ?3
                """, [.text(endpointID), .integer(failedOnly ? 1 : 0), .integer(Int64(max(0, limit)))],
                row: Self.delivery)
        }
    }

    /// See `WebhookRepository.counts`.
    public func counts() async throws -> [WebhookDeliveryState: Int] {
        try await database.countsByState(
            "SELECT state, count(*) FROM webhook_events GROUP BY state", zeroing: WebhookDeliveryState.allCases)
    }

    /// See `WebhookRepository.pendingCounts`: the pending rows only, found through `webhook_events_due`.
    public func pendingCounts() async throws -> [WebhookDeliveryState: Int] {
        try await database.countsByState(Self.pendingCountsSQL, zeroing: [.pending, .inFlight])
    }

    static let pendingCountsSQL = """
        SELECT state, count(*) FROM webhook_events INDEXED BY webhook_events_due
        WHERE state IN ('pending', 'in_flight') GROUP BY state
        """

    /// See `WebhookRepository.nextDue`.
    public func nextDue() async throws -> Date? {
        try await database.perform { db in
            try db.query("SELECT min(next_attempt_at) FROM webhook_events WHERE state IN ('pending', 'in_flight')") {
                $0.optionalInt64(at: 0).map(Date.init(storeMillis:))
            }.first ?? nil
        }
    }

    /// See `WebhookRepository.purge(olderThan:limit:)`.
    @discardableResult
    public func purge(olderThan date: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await database.write { db in
            try db.run(
                """
                DELETE FROM webhook_events WHERE seq IN (SELECT seq FROM webhook_events
                    WHERE state IN ('delivered', 'failed') AND updated_at < ?1 ORDER BY updated_at LIMIT ?2)
                """, [.integer(date.storeMillis), .integer(Int64(limit))])
        }
    }
}
