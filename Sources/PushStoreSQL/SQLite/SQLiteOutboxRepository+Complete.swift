public import Foundation
public import PushStore
import SQLiteDriver

extension SQLiteOutboxRepository {
    /// Rows per `VALUES` list in `complete`: one UPDATE finishes up to this many rows.
    static let completeChunk = 256

    /// See `OutboxRepository.complete`: one transaction; rows not in flight under the outcome's claim
    /// (unknown, already completed, or claimed again since) are left alone and left out of the answer; when
    /// an id is listed twice, its first outcome counts.
    @discardableResult
    public func complete(_ results: [OutboxCompletion], now: Date) async throws -> [String: OutboxState] {
        let policy = retryPolicy
        return try await database.write { db in
            let states = try Self.complete(results, policy: policy, now: now, db)
            try Self.reportEnded(OutboxEnded.rows(results, states: states), now: now, db)
            return states
        }
    }

    /// Writes the webhook events of rows that just ended (`OutboxEnded.report`) inside the caller's transaction.
    static func reportEnded(_ ended: [OutboxEnded.Row], now: Date, _ db: SQLiteConnection) throws {
        try OutboxEnded.report(ended, now: now, SQLiteSession(connection: db)) { try item(id: $0, db) }
    }

    private static func complete(
        _ results: [OutboxCompletion], policy: OutboxRetryPolicy, now: Date, _ db: SQLiteConnection
    ) throws -> [String: OutboxState] {
        let millis = now.storeMillis
        var states: [String: OutboxState] = [:]
        states.reserveCapacity(results.count)
        var seen = Set<String>(minimumCapacity: results.count)
        // Final outcomes with the same state, status and reason (e.g. every "accepted") share one
        // UPDATE per chunk; the apns-unique-id, which the sandbox returns per notification, and the
        // claim's attempt count (the fence) travel with their row id. There are few distinct outcomes, so a short list searched from the last one
        // used costs less than hashing each outcome.
        var groups: [(outcome: FinalOutcome, rows: [(id: String, attempt: Int, uniqueID: String?)])] = []
        var current = 0
        for completion in results where seen.insert(completion.id).inserted {
            let (id, result) = (completion.id, completion.result)
            if result.retries {
                if let state = try completeRetry(completion, policy: policy, millis: millis, db) {
                    states[id] = state
                }
                continue
            }
            let transition = OutboxTransition(result, id: id, attempts: 0, policy: policy, nowMillis: millis)
            let outcome = FinalOutcome(transition)
            if current >= groups.count || groups[current].outcome != outcome {
                if let index = groups.firstIndex(where: { $0.outcome == outcome }) {
                    current = index
                } else {
                    groups.append((outcome, []))
                    current = groups.count - 1
                }
            }
            groups[current].rows.append((id, completion.attempt, transition.apnsUniqueID))
        }
        let first = Int32(3 * completeChunk)
        let finish = try db.statement(completeSQL)
        for (outcome, rows) in groups {
            var start = 0
            while start < rows.count {
                let end = min(start + completeChunk, rows.count)
                defer { finish.reset() }  // also clears the bindings: unused pairs are NULL and match nothing
                for index in start..<end {
                    let parameter = Int32(3 * (index - start))
                    try finish.bind(rows[index].id, at: parameter + 1)
                    try finish.bind(rows[index].uniqueID, at: parameter + 2)
                    try finish.bind(Int64(rows[index].attempt), at: parameter + 3)
                }
                start = end
                try finish.bind(outcome.state.rawValue, at: first + 1)
                try finish.bind(outcome.status, at: first + 2)
                try finish.bind(outcome.reason?.rawValue, at: first + 3)
                try finish.bind(millis, at: first + 4)
                while try finish.step() { states[finish.string(at: 0)] = outcome.state }
            }
        }
        return states
    }

    /// One UPDATE for up to `completeChunk` rows: (id, apns-unique-id, attempt) triples in parameters
    /// 1…3·completeChunk, then state, status, reason and time. Only the narrow state rows still in flight
    /// under that attempt's claim are rewritten, each once; a NULL unique id keeps the stored one. The ids come back by `seq` (RETURNING cannot
    /// name the FROM tables). OR ROLLBACK: see `insertSQL`.
    private static let completeSQL: String = {
        let rows = (0..<completeChunk).map { "(?\(3 * $0 + 1), ?\(3 * $0 + 2), ?\(3 * $0 + 3))" }
            .joined(separator: ", ")
        let first = 3 * completeChunk
        return """
            UPDATE OR ROLLBACK outbox_state SET state = ?\(first + 1), last_status = ?\(first + 2),
                last_reason = ?\(first + 3), apns_unique_id = coalesce(v.column2, apns_unique_id),
                updated_at = ?\(first + 4)
            FROM (VALUES \(rows)) AS v JOIN outbox_items i ON i.id = v.column1
            WHERE outbox_state.seq = i.seq AND outbox_state.state = 'in_flight' AND outbox_state.attempts = v.column3
            RETURNING (SELECT id FROM outbox_items WHERE outbox_items.seq = outbox_state.seq)
            """
    }()

    /// The values a final (accepted or rejected) outcome writes to every row of its group; the
    /// apns-unique-id is per row and not part of it.
    private struct FinalOutcome: Equatable {
        var state: OutboxState
        var status: Int?
        var reason: OutboxReason?

        init(_ transition: OutboxTransition) {
            state = transition.state
            status = transition.status
            reason = transition.reason
        }
    }

    /// A retry: back to queued with backoff, or failed when attempts are used up. Nil if not in flight
    /// under the completion's claim.
    private static func completeRetry(
        _ completion: OutboxCompletion, policy: OutboxRetryPolicy, millis: Int64, _ db: SQLiteConnection
    ) throws -> OutboxState? {
        let (id, result) = (completion.id, completion.result)
        let attemptsOf = try db.statement(
            """
            SELECT s.seq, s.attempts FROM \(SQLiteOutboxColumn.join)
            WHERE i.id = ?1 AND s.state = 'in_flight' AND s.attempts = ?2
            """)
        try attemptsOf.bind(id, at: 1)
        try attemptsOf.bind(Int64(completion.attempt), at: 2)
        let found: (seq: Int64, attempts: Int)? =
            try attemptsOf.step() ? (attemptsOf.int64(at: 0), attemptsOf.int(at: 1)) : nil
        attemptsOf.reset()
        guard let (seq, attempts) = found else { return nil }
        let next = OutboxTransition(result, id: id, attempts: attempts, policy: policy, nowMillis: millis)
        try db.run(
            """
            UPDATE outbox_state SET state = ?2, last_status = ?3, last_reason = ?4,
                next_attempt_at = coalesce(?5, next_attempt_at), updated_at = ?6
            WHERE seq = ?1
            """,
            [
                .integer(seq), .text(next.state.rawValue), next.status.map { .integer(Int64($0)) } ?? .null,
                next.reason.map { .text($0.rawValue) } ?? .null, next.nextAttemptMillis.map { .integer($0) } ?? .null,
                .integer(millis),
            ])
        return next.state
    }
}
