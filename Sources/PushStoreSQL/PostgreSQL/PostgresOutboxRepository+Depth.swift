import Foundation
import PostgresDriver
public import PushStore

extension PostgresOutboxRepository {
    /// See `OutboxRepository.pendingByTopic`: the pending rows, as `pendingCounts()` finds them (state rows
    /// through `outbox_due`, and the rows of live ranges that have no state row yet), each joined to its item
    /// by `seq` for its topic and enqueue time, grouped by topic. No final row is read.
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
        SELECT topic, sum(queued)::bigint, sum(in_flight)::bigint, min(oldest) FROM (
            SELECT i.topic, count(*) FILTER (WHERE s.state = 'queued') AS queued,
                count(*) FILTER (WHERE s.state = 'in_flight') AS in_flight, min(i.created_at) AS oldest
            FROM outbox_state s JOIN outbox_items i ON i.seq = s.seq
            WHERE s.due IS NOT NULL GROUP BY i.topic
            UNION ALL
            SELECT i.topic, count(*) FILTER (WHERE g.owner IS NULL), count(*) FILTER (WHERE g.owner IS NOT NULL),
                min(i.created_at)
            FROM outbox_segments g JOIN outbox_items i ON i.seq BETWEEN g.lo AND g.hi
            WHERE NOT EXISTS (SELECT 1 FROM outbox_state r WHERE r.seq = i.seq) GROUP BY i.topic
        ) p GROUP BY topic ORDER BY topic COLLATE "C"
        """
}
