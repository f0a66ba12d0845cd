import Foundation

extension PushStore {
    static let outboxColumns = """
        id, push_id, token, topic, push_type, priority, expiration, collapse_id, apns_id, payload, environment, \
        state, attempts, next_attempt_at, last_status, last_reason, apns_unique_id, created_at, updated_at
        """

    static func outboxRow(_ row: SQLiteStatement) -> OutboxItem {
        var item = OutboxItem(id: row.string(at: 0), pushID: row.string(at: 1), token: row.string(at: 2),
                              topic: row.string(at: 3), pushType: row.string(at: 4), payload: row.blob(at: 9),
                              environment: row.string(at: 10), priority: row.optionalInt(at: 5),
                              expiration: row.optionalInt(at: 6), collapseID: row.optionalString(at: 7),
                              apnsID: row.optionalString(at: 8), now: Date(storeMillis: row.int64(at: 17)))
        item.state = OutboxState(rawValue: row.string(at: 11)) ?? .failed
        item.attempts = row.int(at: 12)
        item.nextAttemptAt = Date(storeMillis: row.int64(at: 13))
        item.lastStatus = row.optionalInt(at: 14)
        item.lastReason = row.optionalString(at: 15)
        item.apnsUniqueID = row.optionalString(at: 16)
        item.updatedAt = Date(storeMillis: row.int64(at: 18))
        return item
    }

    /// Rows per multi-row INSERT and ids per `IN (…)` list: fewer, larger statements cost less per row.
    static let outboxChunk = 64

    /// Ids per `IN (…)` list in `complete`: one UPDATE finishes up to this many rows.
    static let completeChunk = 256

    /// Stores `items` as queued rows in one transaction: all of them or, on any error, none.
    public func enqueue(_ items: [OutboxItem]) throws {
        var seen = Set<String>(minimumCapacity: items.count)
        for item in items {
            try item.validate()
            guard seen.insert(item.id).inserted else { throw PushStoreError.duplicateID(item.id) }
        }
        try write { db in
            var start = 0
            while start < items.count {
                let chunk = items[start..<min(start + Self.outboxChunk, items.count)]
                start = chunk.endIndex
                do {
                    try insertChunk(chunk, db)
                } catch {
                    // Ids were unique within the batch, so a constraint failure means one exists already.
                    if let sqlite = error as? SQLiteError, sqlite.isConstraintViolation,
                       let taken = try chunk.first(where: { try outboxItem(id: $0.id) != nil }) {
                        throw PushStoreError.duplicateID(taken.id)
                    }
                    throw error
                }
            }
        }
    }

    /// The multi-row INSERT for `rows` rows, 13 parameters per row.
    private static func insertSQL(rows: Int) -> String {
        let perRow: Int32 = 13
        let values = (0..<Int32(rows)).map { row in
            let p = (1...perRow).map { "?\(row * perRow + $0)" }
            return "(\(p[0...10].joined(separator: ", ")), 'queued', 0, \(p[11]), NULL, NULL, NULL, \(p[12]), \(p[12]))"
        }
        return "INSERT INTO outbox (\(outboxColumns)) VALUES \(values.joined(separator: ", "))"
    }

    private static let fullChunkInsertSQL = insertSQL(rows: outboxChunk)

    private func insertChunk(_ chunk: ArraySlice<OutboxItem>, _ db: SQLiteConnection) throws {
        let perRow: Int32 = 13
        // The SQL for a full chunk is built once; only a short last chunk builds its own text.
        let sql = chunk.count == Self.outboxChunk ? Self.fullChunkInsertSQL : Self.insertSQL(rows: chunk.count)
        let insert = try db.statement(sql)
        defer { insert.reset() }
        for (row, item) in chunk.enumerated() {
            let base = Int32(row) * perRow
            try insert.bind(item.id, at: base + 1)
            try insert.bind(item.pushID, at: base + 2)
            try insert.bind(item.token, at: base + 3)
            try insert.bind(item.topic, at: base + 4)
            try insert.bind(item.pushType, at: base + 5)
            try insert.bind(item.priority, at: base + 6)
            try insert.bind(item.expiration, at: base + 7)
            try insert.bind(item.collapseID, at: base + 8)
            try insert.bind(item.apnsID, at: base + 9)
            try insert.bind(item.payload, at: base + 10)
            try insert.bind(item.environment, at: base + 11)
            try insert.bind(item.nextAttemptAt.storeMillis, at: base + 12)
            try insert.bind(item.createdAt.storeMillis, at: base + 13)
        }
        _ = try insert.step()
    }

    /// Claims up to `limit` queued rows due at `now` (earliest due first) and marks them in flight, counting
    /// the attempt; rows whose expiration has passed become `expired` instead, all in one transaction.
    public func claim(limit: Int, now: Date) throws -> [OutboxItem] {
        guard limit > 0 else { return [] }
        let millis = now.storeMillis
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        // One statement per page: the due window is picked in order, each row becomes in_flight (attempt
        // counted) or, if expired (OutboxItem.isExpired), expired. RETURNING gives the rows as updated.
        let claimSQL = """
            UPDATE outbox SET
                state = CASE WHEN \(Self.expiredCondition) THEN 'expired' ELSE 'in_flight' END,
                last_reason = CASE WHEN \(Self.expiredCondition) THEN 'Expired' ELSE last_reason END,
                attempts = CASE WHEN \(Self.expiredCondition) THEN attempts ELSE attempts + 1 END,
                updated_at = ?1
            WHERE rowid IN (SELECT rowid FROM outbox WHERE state = 'queued' AND next_attempt_at <= ?1
                            ORDER BY next_attempt_at, rowid LIMIT ?3)
            RETURNING \(Self.outboxColumns), rowid
            """
        return try write { db in
            var claimed: [(item: OutboxItem, rowid: Int64)] = []
            claimed.reserveCapacity(limit)
            while claimed.count < limit {
                let page = limit - claimed.count
                let rows = try db.query(claimSQL, [.integer(millis), .integer(seconds), .integer(Int64(page))]) {
                    (item: Self.outboxRow($0), rowid: $0.int64(at: 19))
                }
                claimed += rows.filter { $0.item.state == .inFlight }
                if rows.count < page { break }
            }
            // RETURNING gives no order; restore the claim order.
            claimed.sort { ($0.item.nextAttemptAt, $0.rowid) < ($1.item.nextAttemptAt, $1.rowid) }
            return claimed.map(\.item)
        }
    }

    /// SQL twin of `OutboxItem.isExpired(at:)`, with ?2 the current epoch second. Attempts are the count
    /// before this claim. A row expiring at second E is still sent during second E (E < now is false).
    private static let expiredCondition =
        "(expiration > 0 AND expiration < ?2) OR (expiration = 0 AND attempts > 0)"

    /// Records the outcome of in-flight rows in one transaction; returns each changed row's new state.
    /// Rows not in flight (unknown, or already completed) are left alone and left out of the answer;
    /// when an id is listed twice, its first outcome counts.
    @discardableResult
    public func complete(_ results: [(id: String, result: OutboxResult)], now: Date) throws -> [String: OutboxState] {
        let millis = now.storeMillis
        let policy = retryPolicy
        return try write { db in
            var states: [String: OutboxState] = [:]
            states.reserveCapacity(results.count)
            var seen = Set<String>(minimumCapacity: results.count)
            // Final outcomes with identical values (e.g. every production "accepted") share one UPDATE per chunk.
            var groups: [FinalOutcome: [String]] = [:]
            for (id, result) in results where seen.insert(id).inserted {
                if case .retry = result {
                    if let state = try completeRetry(id: id, result: result, policy: policy, millis: millis, db) {
                        states[id] = state
                    }
                } else {
                    let next = OutboxTransition(result, id: id, attempts: 0, policy: policy, nowMillis: millis)
                    groups[FinalOutcome(next), default: []].append(id)
                }
            }
            let first = Int32(Self.completeChunk)
            let finish = try db.statement(Self.completeSQL)
            for (outcome, ids) in groups {
                var start = 0
                while start < ids.count {
                    let chunk = ids[start..<min(start + Self.completeChunk, ids.count)]
                    start = chunk.endIndex
                    defer { finish.reset() }  // also clears the bindings: unused placeholders are NULL
                    for (offset, id) in chunk.enumerated() { try finish.bind(id, at: Int32(offset + 1)) }
                    try finish.bind(outcome.state.rawValue, at: first + 1)
                    try finish.bind(outcome.status, at: first + 2)
                    try finish.bind(outcome.reason, at: first + 3)
                    try finish.bind(outcome.apnsUniqueID, at: first + 4)
                    try finish.bind(millis, at: first + 5)
                    while try finish.step() { states[finish.string(at: 0)] = outcome.state }
                }
            }
            return states
        }
    }

    /// One UPDATE for up to `completeChunk` ids (parameters 1…completeChunk), then state, status, reason,
    /// apns-unique-id and time.
    private static let completeSQL: String = {
        let placeholders = (1...completeChunk).map { "?\($0)" }.joined(separator: ", ")
        let first = completeChunk
        return """
            UPDATE outbox SET state = ?\(first + 1), last_status = ?\(first + 2), last_reason = ?\(first + 3),
                apns_unique_id = coalesce(?\(first + 4), apns_unique_id), updated_at = ?\(first + 5)
            WHERE state = 'in_flight' AND id IN (\(placeholders))
            RETURNING id
            """
    }()

    /// The values a final (accepted or rejected) outcome writes.
    private struct FinalOutcome: Hashable {
        var state: OutboxState
        var status: Int?
        var reason: String?
        var apnsUniqueID: String?

        init(_ transition: OutboxTransition) {
            state = transition.state
            status = transition.status
            reason = transition.reason
            apnsUniqueID = transition.apnsUniqueID
        }
    }

    /// A retry: back to queued with backoff, or failed when attempts are used up. Nil if not in flight.
    private func completeRetry(id: String, result: OutboxResult, policy: OutboxRetryPolicy, millis: Int64,
                               _ db: SQLiteConnection) throws -> OutboxState? {
        let attemptsOf = try db.statement("SELECT attempts FROM outbox WHERE id = ?1 AND state = 'in_flight'")
        try attemptsOf.bind(id, at: 1)
        let found: Int? = try attemptsOf.step() ? attemptsOf.int(at: 0) : nil
        attemptsOf.reset()
        guard let attempts = found else { return nil }
        let next = OutboxTransition(result, id: id, attempts: attempts, policy: policy, nowMillis: millis)
        try db.run("""
            UPDATE outbox SET state = ?2, last_status = ?3, last_reason = ?4,
                next_attempt_at = coalesce(?5, next_attempt_at), updated_at = ?6
            WHERE id = ?1
            """, [.text(id), .text(next.state.rawValue), next.status.map { .integer(Int64($0)) } ?? .null,
                  next.reason.map { .text($0) } ?? .null, next.nextAttemptMillis.map { .integer($0) } ?? .null,
                  .integer(millis)])
        return next.state
    }

    /// Puts every in-flight row back to queued (after a crash mid-send); returns how many.
    @discardableResult
    public func recoverInFlight() throws -> Int {
        try Self.requeueInFlight(connection)
    }

    static func requeueInFlight(_ db: SQLiteConnection) throws -> Int {
        try db.run("UPDATE outbox SET state = 'queued' WHERE state = 'in_flight'")
    }

    /// The row with `id`, or nil.
    public func outboxItem(id: String) throws -> OutboxItem? {
        try connection.query("SELECT \(Self.outboxColumns) FROM outbox WHERE id = ?1", [.text(id)],
                             row: Self.outboxRow).first
    }

    /// Every row of one push (one API call), in enqueue order.
    public func outboxItems(pushID: String) throws -> [OutboxItem] {
        try connection.query("SELECT \(Self.outboxColumns) FROM outbox WHERE push_id = ?1 ORDER BY rowid",
                             [.text(pushID)], row: Self.outboxRow)
    }

    /// Rows per state; every state is present, zero when none.
    public func outboxCounts() throws -> [OutboxState: Int] {
        var counts = Dictionary(uniqueKeysWithValues: OutboxState.allCases.map { ($0, 0) })
        for (state, count) in try connection.query("SELECT state, count(*) FROM outbox GROUP BY state", row: {
            (OutboxState(rawValue: $0.string(at: 0)), $0.int(at: 1))
        }) {
            if let state { counts[state] = count }
        }
        return counts
    }

    /// Rows still to be sent: queued plus in flight.
    public func outboxDepth() throws -> Int {
        try connection.query("SELECT count(*) FROM outbox WHERE state IN ('queued', 'in_flight')") {
            $0.int(at: 0)
        }.first ?? 0
    }

    /// Deletes terminal rows last changed before `date`; returns how many.
    @discardableResult
    public func purgeOutbox(olderThan date: Date) throws -> Int {
        try connection.run("""
            DELETE FROM outbox WHERE state IN ('accepted', 'rejected', 'failed', 'expired') AND updated_at < ?1
            """, [.integer(date.storeMillis)])
    }
}
