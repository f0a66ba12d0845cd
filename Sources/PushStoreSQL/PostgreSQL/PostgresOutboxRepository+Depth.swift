import Foundation
import PostgresDriver
public import PushStore

extension PostgresOutboxRepository {
    /// See `OutboxRepository.pendingByTopic`: the pending notifications, as `pendingCounts()` finds them
    /// (outcome rows through `outbox_due`, and the live ranges, whose notifications share one topic and one
    /// enqueue time), each outcome row and range joined to its push (the one starting last at or before it)
    /// for its topic and enqueue time, grouped by topic. No final notification is read, and a range is read
    /// once, not per notification.
    public func pendingByTopic() async throws -> [OutboxTopicDepth] {
        try await database.transaction { db in
            db.readPendingRowsByIndex()
            db.joinByLookup()
            return try db.query(Self.pendingByTopicSQL).map { row in
                OutboxTopicDepth(
                    topic: row.string(at: 0), queued: row.int(at: 1), inFlight: row.int(at: 2),
                    oldestEnqueuedAt: Date(storeMillis: row.int64(at: 3)))
            }
        }
    }

    static let pendingByTopicSQL = """
        SELECT topic, coalesce(sum(queued), 0)::bigint, coalesce(sum(in_flight), 0)::bigint, min(oldest) FROM (
            SELECT p.topic, count(*) FILTER (WHERE s.state = 'queued') AS queued,
                count(*) FILTER (WHERE s.state = 'in_flight') AS in_flight, min(p.created_at) AS oldest
            FROM outbox_state s
            CROSS JOIN LATERAL (SELECT topic, created_at FROM outbox_pushes p WHERE p.lo <= s.seq ORDER BY p.lo DESC LIMIT 1) p
            WHERE s.due IS NOT NULL GROUP BY p.topic
            UNION ALL
            SELECT p.topic, sum(g.remaining) FILTER (WHERE g.owner IS NULL), sum(g.remaining) FILTER (WHERE g.owner IS NOT NULL),
                min(p.created_at)
            FROM outbox_segments g
            CROSS JOIN LATERAL (SELECT topic, created_at FROM outbox_pushes p WHERE p.lo <= g.lo ORDER BY p.lo DESC LIMIT 1) p
            GROUP BY p.topic
        ) p GROUP BY topic ORDER BY topic COLLATE "C"
        """
}
