import Foundation
public import PushStore
import SQLiteDriver

extension SQLiteOutboxRepository {
    /// See `OutboxRepository.pendingByTopic`: the pending rows read through `outbox_queue` and
    /// `outbox_in_flight` (the partial indexes holding just those), each joined to its item by `seq` for its
    /// topic and enqueue time, grouped by topic. No final row is read.
    public func pendingByTopic() async throws -> [OutboxTopicDepth] {
        try await database.perform { db in
            try db.query(Self.pendingByTopicSQL) { row in
                OutboxTopicDepth(
                    topic: row.string(at: 0), queued: row.int(at: 1), inFlight: row.int(at: 2),
                    oldestEnqueuedAt: Date(storeMillis: row.int64(at: 3)))
            }
        }
    }

    static let pendingByTopicSQL = """
        SELECT i.topic, count(*) FILTER (WHERE s.state = 'queued'), count(*) FILTER (WHERE s.state = 'in_flight'),
               min(i.created_at)
        FROM (SELECT seq, state FROM outbox_state INDEXED BY outbox_queue WHERE state = 'queued'
              UNION ALL
              SELECT seq, state FROM outbox_state INDEXED BY outbox_in_flight WHERE state = 'in_flight') s
        JOIN outbox_items i ON i.seq = s.seq
        GROUP BY i.topic ORDER BY i.topic
        """
}
