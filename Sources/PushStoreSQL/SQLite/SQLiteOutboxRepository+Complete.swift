public import Foundation
public import PushStore
import SQLiteDriver

extension SQLiteOutboxRepository {
    /// See `OutboxRepository.complete`: one transaction; notifications not in flight under the outcome's claim
    /// (unknown, already completed, or claimed again since) are left alone and left out of the answer; when
    /// an id is listed twice, its first outcome counts.
    ///
    /// A notification claimed with its range leaves the range (its bit in `done`, the range counted down and
    /// deleted at 0); an accepted one without an `apns-unique-id` writes nothing else, every other outcome
    /// writes its outcome row. One claimed by its outcome row (a retry) has that row rewritten.
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
        var ranges: [Int64: SQLiteOutboxRange?] = [:]
        // Notifications accepted without an outcome row: `seq`, and the claims they were accepted under.
        var settled: [(seq: Int64, acceptedAttempts: Int?)] = []
        let write = try db.statement(
            """
            INSERT OR ROLLBACK INTO outbox_state (seq, state, attempts, next_attempt_at, last_status, last_reason,
                apns_unique_id, updated_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
        for completion in results where seen.insert(completion.id).inserted {
            let (id, result) = (completion.id, completion.result)
            var seq = completion.receipt.sequence
            var rangeKey = completion.receipt.range
            if seq == nil {
                guard let found = try Self.seq(of: id, db) else { continue }
                seq = found
                if try !hasOutcomeRow(found, db) {
                    rangeKey = try Self.ranges(from: found, to: found, db).first?.lo
                    if rangeKey == nil { continue }
                }
            }
            guard let seq else { continue }
            guard let rangeKey else {
                if let state = try completeRow(seq, completion, policy: policy, millis: millis, db) {
                    states[id] = state
                }
                continue
            }
            if ranges[rangeKey] == nil {
                ranges[rangeKey] = .some(
                    try db.query("SELECT \(SQLiteOutboxRange.columns) FROM outbox_ranges WHERE lo = ?1", [.integer(rangeKey)]) {
                        SQLiteOutboxRange($0)
                    }.first)
            }
            guard var range = ranges[rangeKey] ?? nil, range.inFlight, range.claims == completion.attempt,
                range.lo <= seq, seq <= range.hi, !range.isDone(seq)
            else { continue }
            let transition = OutboxTransition(result, id: id, attempts: range.claims, policy: policy, nowMillis: millis)
            range.markDone(seq)
            ranges[rangeKey] = range
            states[id] = transition.state
            if transition.state == .accepted, transition.apnsUniqueID == nil {
                settled.append((seq, range.claims))
                continue
            }
            defer { write.reset() }
            try write.bind(seq, at: 1)
            try write.bind(transition.state.rawValue, at: 2)
            try write.bind(Int64(range.claims), at: 3)
            try write.bind(transition.nextAttemptMillis ?? range.due, at: 4)
            try write.bind(transition.status.map(Int64.init), at: 5)
            try write.bind(transition.reason?.rawValue, at: 6)
            try write.bind(transition.apnsUniqueID, at: 7)
            try write.bind(millis, at: 8)
            _ = try write.step()
        }
        for case let range? in ranges.values { try save(range, db) }
        try markSettled(pushesOf(settled, db), millis: millis, db)
        return states
    }

    /// Whether notification `seq` has an outcome row.
    private static func hasOutcomeRow(_ seq: Int64, _ db: SQLiteConnection) throws -> Bool {
        try !db.query("SELECT 1 FROM outbox_state WHERE seq = ?1", [.integer(seq)]) { _ in true }.isEmpty
    }

    /// The pushes (by `lo`, in order) of the notifications `settled`, each with the highest attempt count its
    /// accepted notifications without a row were accepted under: one lookup per push, not per notification.
    private static func pushesOf(_ settled: [(seq: Int64, acceptedAttempts: Int?)], _ db: SQLiteConnection) throws
        -> [(lo: Int64, acceptedAttempts: Int?)]
    {
        guard !settled.isEmpty else { return [] }
        let sorted = settled.sorted { $0.seq < $1.seq }
        var pushes: [(lo: Int64, acceptedAttempts: Int?)] = []
        var end: Int64 = .min  // past the current push's last notification
        for (seq, attempts) in sorted {
            if seq >= end {
                guard
                    let (lo, count) = try db.query(
                        "SELECT lo, count FROM outbox_pushes WHERE lo <= ?1 ORDER BY lo DESC LIMIT 1", [.integer(seq)],
                        row: { ($0.int64(at: 0), $0.int64(at: 1)) }
                    ).first
                else { continue }
                pushes.append((lo, nil))
                end = lo + count
            }
            if let attempts {
                pushes[pushes.count - 1].acceptedAttempts = max(pushes[pushes.count - 1].acceptedAttempts ?? 0, attempts)
            }
        }
        return pushes
    }

    /// The outcome of a notification claimed by its outcome row: the row rewritten. Nil if not in flight
    /// under the completion's claim.
    private static func completeRow(
        _ seq: Int64, _ completion: OutboxCompletion, policy: OutboxRetryPolicy, millis: Int64, _ db: SQLiteConnection
    ) throws -> OutboxState? {
        let found = try db.query(
            "SELECT attempts FROM outbox_state WHERE seq = ?1 AND state = 'in_flight' AND attempts = ?2",
            [.integer(seq), .integer(Int64(completion.attempt))]
        ) { $0.int(at: 0) }.first
        guard let attempts = found else { return nil }
        let next = OutboxTransition(completion.result, id: completion.id, attempts: attempts, policy: policy, nowMillis: millis)
        try db.run(
            """
            UPDATE OR ROLLBACK outbox_state SET state = ?2, last_status = ?3, last_reason = ?4,
                apns_unique_id = coalesce(?5, apns_unique_id), next_attempt_at = coalesce(?6, next_attempt_at), updated_at = ?7
            WHERE seq = ?1
            """,
            [
                .integer(seq), .text(next.state.rawValue), next.status.map { .integer(Int64($0)) } ?? .null,
                next.reason.map { .text($0.rawValue) } ?? .null, next.apnsUniqueID.map { .text($0) } ?? .null,
                next.nextAttemptMillis.map { .integer($0) } ?? .null, .integer(millis),
            ])
        return next.state
    }
}
