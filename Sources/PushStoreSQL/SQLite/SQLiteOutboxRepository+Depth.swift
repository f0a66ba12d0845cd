import Foundation
public import PushStore
import SQLiteDriver

extension SQLiteOutboxRepository {
    /// See `OutboxRepository.pendingByTopic`: each live range joined with the pushes it covers (their topic
    /// and enqueue time; the pending notifications of each counted from the range's `done` bits), and the
    /// outcome rows queued or in flight (from `outbox_queue` and `outbox_in_flight`) each joined with its
    /// push. No final notification is read.
    public func pendingByTopic() async throws -> [OutboxTopicDepth] {
        try await database.perform { db in
            var topics: [String: OutboxTopicDepth] = [:]
            func add(_ topic: String, queued: Int, inFlight: Int, enqueuedAt: Int64) {
                let date = Date(storeMillis: enqueuedAt)
                var depth = topics[topic] ?? OutboxTopicDepth(topic: topic, queued: 0, inFlight: 0, oldestEnqueuedAt: date)
                depth.queued += queued
                depth.inFlight += inFlight
                depth.oldestEnqueuedAt = min(depth.oldestEnqueuedAt, date)
                topics[topic] = depth
            }
            let rangeColumns = SQLiteOutboxRange.columns.split(separator: ",").map { "r.\($0.trimmingCharacters(in: .whitespaces))" }
            let ranges = try db.statement(
                """
                SELECT \(rangeColumns.joined(separator: ", ")), p.lo, p.count, p.topic, p.created_at
                FROM outbox_ranges r JOIN outbox_pushes p
                    ON p.lo BETWEEN coalesce((SELECT q.lo FROM outbox_pushes q WHERE q.lo <= r.lo ORDER BY q.lo DESC LIMIT 1), r.lo)
                        AND r.hi
                """)
            defer { ranges.reset() }
            while try ranges.step() {
                let range = SQLiteOutboxRange(ranges)
                let (lo, count) = (ranges.int64(at: 8), ranges.int64(at: 9))
                let pending = range.pending(from: lo, to: lo + count - 1)
                guard pending > 0 else { continue }
                add(
                    ranges.string(at: 10), queued: range.inFlight ? 0 : pending, inFlight: range.inFlight ? pending : 0,
                    enqueuedAt: ranges.int64(at: 11))
            }
            for (topic, inFlight, enqueuedAt) in try db.query(
                Self.pendingRowsByTopicSQL,
                row: {
                    ($0.string(at: 0), $0.int64(at: 1) != 0, $0.int64(at: 2))
                })
            {
                add(topic, queued: inFlight ? 0 : 1, inFlight: inFlight ? 1 : 0, enqueuedAt: enqueuedAt)
            }
            return topics.values.sorted { $0.topic < $1.topic }
        }
    }

    static let pendingRowsByTopicSQL = """
        SELECT p.topic, s.state = 'in_flight', p.created_at
        FROM (SELECT seq, state FROM outbox_state INDEXED BY outbox_queue WHERE state = 'queued'
              UNION ALL
              SELECT seq, state FROM outbox_state INDEXED BY outbox_in_flight WHERE state = 'in_flight') s
        JOIN outbox_pushes p ON p.lo = (SELECT q.lo FROM outbox_pushes q WHERE q.lo <= s.seq ORDER BY q.lo DESC LIMIT 1)
        """
}
