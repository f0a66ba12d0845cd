public import Foundation
import PostgresDriver
public import PushStore

extension PostgresOutboxRepository {
    /// See `OutboxRepository.complete`: one statement for the whole batch (`PostgresOutcomes`), each
    /// notification's new values passed as arrays. Only notifications still in flight under the outcome's
    /// claim (attempts equal to the completion's `attempt`) change; stale outcomes and notifications not in
    /// flight are left alone and left out of the answer; when an id is listed twice, its first outcome
    /// counts. The fence also makes the retry schedule exact: the transition is computed from the
    /// completion's attempt, which is the notification's. Outcomes that carry their claim's receipt
    /// (`OutboxReceipt`) are reached by its keys, the others by their id. A retry's due time is its back-off
    /// after now on the database's clock, like the change times (`PostgresClock`; `now` only under `.caller`).
    @discardableResult
    public func complete(_ results: [OutboxCompletion], now: Date) async throws -> [String: OutboxState] {
        let millis = now.storeMillis
        var seen = Set<String>(minimumCapacity: results.count)
        var outcomes = PostgresOutcomes()
        for completion in results where seen.insert(completion.id).inserted {
            let next = OutboxTransition(
                completion.result, id: completion.id, attempts: completion.attempt, policy: retryPolicy, nowMillis: millis)
            outcomes.append(
                id: completion.id, fence: completion.attempt, attempts: completion.attempt, state: next.state,
                status: next.status, reason: next.reason?.rawValue, uniqueID: next.apnsUniqueID,
                backOff: next.nextAttemptMillis.map { $0 - millis }, seq: completion.receipt.sequence,
                range: completion.receipt.range)
        }
        guard !outcomes.isEmpty else { return [:] }
        // Only a batch that may end notifications rejected or failed writes more (their events) before it
        // commits; any other is one round trip: the transaction's start, the statement and the commit go out
        // together.
        let mayEnd = outcomes.mayEnd
        let clockNow = database.clock.millis(now)
        let batch = outcomes
        let rows = try await database.transaction { db in
            db.lookUpByKey()
            if batch.leavesOnly { db.planOnce() }
            db.commitWithoutFlush()
            let rows = try batch.record(now: clockNow, committing: !mayEnd, db)
            guard mayEnd else { return rows }
            var states: [String: OutboxState] = [:]
            for (id, state) in rows { states[id] = state }
            try Self.reportEnded(OutboxEnded.rows(results, states: states), now: now, db)
            return rows
        }
        var answer: [String: OutboxState] = [:]
        for (id, state) in rows { answer[id] = state }
        return answer
    }

    /// Writes the webhook events of notifications that just ended (`OutboxEnded.report`) inside the
    /// caller's transaction.
    static func reportEnded(_ ended: [OutboxEnded.Row], now: Date, _ db: PostgresConnection) throws {
        try OutboxEnded.report(ended, now: now, PostgresSession(connection: db)) { id in try Self.item(id: id, db) }
    }
}

/// The columns of an outcome row (`outbox_state s`) that an item takes, in order.
enum PostgresOutcomeRow {
    static let columns = "s.state, s.attempts, s.next_attempt_at, s.last_status, s.last_reason, s.apns_unique_id, s.updated_at"

    /// Sets `item`'s state from `columns` read at `offset` of `row`.
    static func read(_ row: PostgresRow, at offset: Int32, into item: inout OutboxItem) {
        item.state = OutboxState(rawValue: row.string(at: offset)) ?? .failed
        item.attempts = row.int(at: offset + 1)
        item.nextAttemptAt = Date(storeMillis: row.int64(at: offset + 2))
        item.lastStatus = row.optionalInt(at: offset + 3)
        item.lastReason = OutboxItem.lastReason(column: row.optionalString(at: offset + 4))
        item.apnsUniqueID = row.optionalString(at: offset + 5)
        item.updatedAt = Date(storeMillis: row.int64(at: offset + 6))
    }
}
