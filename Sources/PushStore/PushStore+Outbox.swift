import APNSCore
import Foundation

extension PushStore {
    /// The columns `outboxRow` reads, over `outbox_items i` joined with `outbox_state s`.
    static let outboxColumns = """
        i.id, i.push_id, i.token, i.topic, i.push_type, i.priority, s.expiration, i.collapse_id, i.apns_id, \
        i.payload, i.environment, s.state, s.attempts, s.next_attempt_at, s.last_status, s.last_reason, \
        s.apns_unique_id, i.created_at, s.updated_at
        """

    /// The FROM clause for `outboxColumns`.
    static let outboxJoin = "outbox_items i JOIN outbox_state s ON s.seq = i.seq"

    /// The item in the current row of a statement selecting `outboxColumns`.
    static func outboxRow(_ row: SQLiteStatement) -> OutboxItem {
        outboxRow(row, previous: nil)
    }

    /// The item in the current row of a statement selecting `outboxColumns`. With `previous` (the row
    /// before), push id, topic and payload are shared with it when equal, as along one fan-out push.
    static func outboxRow(_ row: SQLiteStatement, previous: OutboxItem?) -> OutboxItem {
        let pushID, topic: String
        let payload: [UInt8]
        if let previous {
            pushID = row.string(at: 1, reusing: previous.pushID)
            topic = row.string(at: 3, reusing: previous.topic)
            payload = row.blob(at: 9, reusing: previous.payload)
        } else {
            pushID = row.string(at: 1)
            topic = row.string(at: 3)
            payload = row.blob(at: 9)
        }
        // Every column was checked on the way in (`OutboxItem.validate`), so the typed values come back as is.
        var item = OutboxItem(id: row.string(at: 0), pushID: pushID, token: DeviceToken(storedHex: row.string(at: 2)),
                              topic: topic, pushType: PushType(rawValue: row.string(at: 4)), payload: payload,
                              environment: APNSEnvironment(named: row.string(at: 10)) ?? .production,
                              priority: row.optionalInt(at: 5).flatMap(Priority.init(rawValue:)),
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

    /// Rows per multi-row INSERT: fewer, larger statements cost less per row.
    static let outboxChunk = 64

    /// Rows per `VALUES` list in `complete`: one UPDATE finishes up to this many rows.
    static let completeChunk = 256

    /// Stores `items` as queued rows in one transaction: all of them or, on any error, none.
    public func enqueue(_ items: [OutboxItem]) throws {
        var seen = Set<String>(minimumCapacity: items.count)
        for index in items.indices {  // by index: no copy of each item
            try items[index].validate()
            guard seen.insert(items[index].id).inserted else { throw PushStoreError.duplicateID(items[index].id) }
        }
        try write { db in
            // Both tables share `seq`; the write lock is held, so the next free one cannot be taken meanwhile.
            let last = try db.statement("SELECT coalesce(max(seq), 0) FROM outbox_items")
            _ = try last.step()
            var seq = last.int64(at: 0) + 1
            last.reset()
            var start = 0
            while start < items.count {
                let chunk = items[start..<min(start + Self.outboxChunk, items.count)]
                start = chunk.endIndex
                do {
                    try insertChunk(chunk, firstSeq: seq, db)
                    seq += Int64(chunk.count)
                } catch {
                    // Ids were unique within the batch, so a constraint failure means one exists already.
                    // OR ROLLBACK has undone the whole transaction, so only rows stored before are found.
                    if let sqlite = error as? SQLiteError, sqlite.isConstraintViolation,
                       let taken = try chunk.first(where: { try outboxItem(id: $0.id) != nil }) {
                        throw PushStoreError.duplicateID(taken.id)
                    }
                    throw error
                }
            }
        }
    }

    /// Parameters per row of the `outbox_items` and `outbox_state` multi-row INSERTs.
    private static let itemParameters: Int32 = 12
    private static let stateParameters: Int32 = 4

    /// The multi-row INSERTs for `rows` rows: immutable columns, then the initial state.
    ///
    /// The outbox's writes say OR ROLLBACK: a failed constraint ends the whole transaction, which the
    /// callers do on any error anyway. With the default (ABORT), SQLite must be able to undo a single
    /// statement, so every multi-row statement first copies each page it touches to a statement journal.
    private static func insertSQL(rows: Int) -> (items: String, state: String) {
        func placeholders(_ count: Int32, row: Int32) -> [String] {
            (1...count).map { "?\(row * count + $0)" }
        }
        let items = (0..<Int32(rows)).map { row in
            "(\(placeholders(itemParameters, row: row).joined(separator: ", ")))"
        }
        let state = (0..<Int32(rows)).map { row in
            let p = placeholders(stateParameters, row: row)
            return "(\(p[0]), 'queued', 0, \(p[1]), \(p[2]), NULL, NULL, NULL, \(p[3]))"
        }
        return ("""
            INSERT OR ROLLBACK INTO outbox_items (seq, id, push_id, token, topic, push_type, priority, collapse_id, \
            apns_id, payload, environment, created_at) VALUES \(items.joined(separator: ", "))
            """, """
            INSERT OR ROLLBACK INTO outbox_state (seq, state, attempts, next_attempt_at, expiration, last_status, \
            last_reason, apns_unique_id, updated_at) VALUES \(state.joined(separator: ", "))
            """)
    }

    private static let fullChunkInsertSQL = insertSQL(rows: outboxChunk)

    private func insertChunk(_ chunk: ArraySlice<OutboxItem>, firstSeq: Int64, _ db: SQLiteConnection) throws {
        // The SQL for a full chunk is built once; only a short last chunk builds its own text.
        let sql = chunk.count == Self.outboxChunk ? Self.fullChunkInsertSQL : Self.insertSQL(rows: chunk.count)
        let insertItems = try db.statement(sql.items)
        defer { insertItems.reset() }
        // By index, reading fields in place: iterating the items would copy (retain and release) each one.
        for row in 0..<chunk.count {
            let index = chunk.startIndex + row
            let base = Int32(row) * Self.itemParameters
            try insertItems.bind(firstSeq + Int64(row), at: base + 1)
            try insertItems.bind(chunk[index].id, at: base + 2)
            try insertItems.bind(chunk[index].pushID, at: base + 3)
            try insertItems.bind(chunk[index].token.hex, at: base + 4)
            try insertItems.bind(chunk[index].topic, at: base + 5)
            try insertItems.bind(chunk[index].pushType.rawValue, at: base + 6)
            try insertItems.bind(chunk[index].priority?.rawValue, at: base + 7)
            try insertItems.bind(chunk[index].collapseID, at: base + 8)
            try insertItems.bind(chunk[index].apnsID, at: base + 9)
            try insertItems.bind(chunk[index].payload, at: base + 10)
            try insertItems.bind(chunk[index].environment.name, at: base + 11)
            try insertItems.bind(chunk[index].createdAt.storeMillis, at: base + 12)
        }
        _ = try insertItems.step()
        let insertState = try db.statement(sql.state)
        defer { insertState.reset() }
        for row in 0..<chunk.count {
            let index = chunk.startIndex + row
            let base = Int32(row) * Self.stateParameters
            try insertState.bind(firstSeq + Int64(row), at: base + 1)
            try insertState.bind(chunk[index].nextAttemptAt.storeMillis, at: base + 2)
            try insertState.bind(chunk[index].expiration, at: base + 3)
            try insertState.bind(chunk[index].createdAt.storeMillis, at: base + 4)
        }
        _ = try insertState.step()
    }

    /// Claims up to `limit` queued rows due at `now` (earliest due first) and marks them in flight, counting
    /// the attempt; rows whose expiration has passed become `expired` instead, all in one transaction.
    public func claim(limit: Int, now: Date) throws -> [OutboxItem] {
        guard limit > 0 else { return [] }
        let millis = now.storeMillis
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let updatedAt = Date(storeMillis: millis)
        return try write { db in
            // Per page: read the due window in claim order (with the expiry verdict), then move the same
            // window on with one UPDATE of the narrow state rows. The window is every queued row up to
            // the last one read, in (next_attempt_at, seq) order; nothing else writes inside this
            // transaction, so the UPDATE finds exactly the rows the SELECT returned.
            let due = try db.statement(Self.claimSelectSQL)
            let take = try db.statement(Self.claimUpdateSQL)
            var claimed: [OutboxItem] = []
            claimed.reserveCapacity(min(limit, 4_096))
            while claimed.count < limit {
                let page = limit - claimed.count
                var rows = 0
                var last: (nextAttempt: Int64, seq: Int64) = (0, 0)
                do {
                    defer { due.reset() }
                    try due.bind(millis, at: 1)
                    try due.bind(seconds, at: 2)
                    try due.bind(Int64(page), at: 3)
                    while try due.step() {
                        rows += 1
                        last = (due.int64(at: 13), due.int64(at: 20))
                        if due.int64(at: 19) != 0 { continue }  // expired: not handed out
                        var item = Self.outboxRow(due, previous: claimed.last)
                        item.state = .inFlight
                        item.attempts += 1
                        item.updatedAt = updatedAt
                        claimed.append(consume item)
                    }
                }
                guard rows > 0 else { break }
                do {
                    defer { take.reset() }
                    try take.bind(millis, at: 1)
                    try take.bind(seconds, at: 2)
                    try take.bind(last.nextAttempt, at: 3)
                    try take.bind(last.seq, at: 4)
                    while try take.step() {}
                }
                if rows < page { break }
            }
            return claimed
        }
    }

    /// The due window (?1 now in ms, ?3 rows), earliest first, each with its expiry verdict and `seq`
    /// after the `outboxColumns`.
    private static let claimSelectSQL = """
        SELECT \(outboxColumns), \(expiredCondition), s.seq
        FROM outbox_state s JOIN outbox_items i ON i.seq = s.seq
        WHERE s.state = 'queued' AND s.next_attempt_at <= ?1
        ORDER BY s.next_attempt_at, s.seq LIMIT ?3
        """

    /// The same window, up to its last row (?3 next_attempt_at, ?4 seq), made in flight (attempt counted)
    /// or, if expired (OutboxItem.isExpired), expired. A range, not `seq IN (SELECT … LIMIT)`, so SQLite
    /// builds no temporary table of the window. OR ROLLBACK: see `insertSQL`.
    private static let claimUpdateSQL = """
        UPDATE OR ROLLBACK outbox_state AS s SET
            state = CASE WHEN \(expiredCondition) THEN 'expired' ELSE 'in_flight' END,
            last_reason = CASE WHEN \(expiredCondition) THEN 'Expired' ELSE last_reason END,
            attempts = CASE WHEN \(expiredCondition) THEN attempts ELSE attempts + 1 END,
            updated_at = ?1
        WHERE state = 'queued' AND next_attempt_at <= ?3 AND (next_attempt_at < ?3 OR seq <= ?4)
        """

    /// SQL twin of `OutboxItem.isExpired(at:)` over `outbox_state s`, with ?2 the current epoch second.
    /// Attempts are the count before this claim. A row expiring at second E is still sent during second E
    /// (E < now is false).
    private static let expiredCondition =
        "((s.expiration > 0 AND s.expiration < ?2) OR (s.expiration = 0 AND s.attempts > 0))"

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
            // Final outcomes with the same state, status and reason (e.g. every "accepted") share one
            // UPDATE per chunk; the apns-unique-id, which the sandbox returns per notification, travels
            // with its row id. There are few distinct outcomes, so a short list searched from the last one
            // used costs less than hashing each outcome.
            var groups: [(outcome: FinalOutcome, rows: [(id: String, uniqueID: String?)])] = []
            var current = 0
            for (id, result) in results where seen.insert(id).inserted {
                if result.retries {
                    if let state = try completeRetry(id: id, result: result, policy: policy, millis: millis, db) {
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
                groups[current].rows.append((id, transition.apnsUniqueID))
            }
            let first = Int32(2 * Self.completeChunk)
            let finish = try db.statement(Self.completeSQL)
            for (outcome, rows) in groups {
                var start = 0
                while start < rows.count {
                    let end = min(start + Self.completeChunk, rows.count)
                    defer { finish.reset() }  // also clears the bindings: unused pairs are NULL and match nothing
                    for index in start..<end {
                        let parameter = Int32(2 * (index - start))
                        try finish.bind(rows[index].id, at: parameter + 1)
                        try finish.bind(rows[index].uniqueID, at: parameter + 2)
                    }
                    start = end
                    try finish.bind(outcome.state.rawValue, at: first + 1)
                    try finish.bind(outcome.status, at: first + 2)
                    try finish.bind(outcome.reason, at: first + 3)
                    try finish.bind(millis, at: first + 4)
                    while try finish.step() { states[finish.string(at: 0)] = outcome.state }
                }
            }
            return states
        }
    }

    /// One UPDATE for up to `completeChunk` rows: (id, apns-unique-id) pairs in parameters
    /// 1…2·completeChunk, then state, status, reason and time. Only the narrow state rows are rewritten,
    /// each once; a NULL unique id keeps the stored one. The ids come back by `seq` (RETURNING cannot
    /// name the FROM tables). OR ROLLBACK: see `insertSQL`.
    private static let completeSQL: String = {
        let pairs = (0..<completeChunk).map { "(?\(2 * $0 + 1), ?\(2 * $0 + 2))" }.joined(separator: ", ")
        let first = 2 * completeChunk
        return """
            UPDATE OR ROLLBACK outbox_state SET state = ?\(first + 1), last_status = ?\(first + 2),
                last_reason = ?\(first + 3), apns_unique_id = coalesce(v.column2, apns_unique_id),
                updated_at = ?\(first + 4)
            FROM (VALUES \(pairs)) AS v JOIN outbox_items i ON i.id = v.column1
            WHERE outbox_state.seq = i.seq AND outbox_state.state = 'in_flight'
            RETURNING (SELECT id FROM outbox_items WHERE outbox_items.seq = outbox_state.seq)
            """
    }()

    /// The values a final (accepted or rejected) outcome writes to every row of its group; the
    /// apns-unique-id is per row and not part of it.
    private struct FinalOutcome: Equatable {
        var state: OutboxState
        var status: Int?
        var reason: String?

        init(_ transition: OutboxTransition) {
            state = transition.state
            status = transition.status
            reason = transition.reason
        }
    }

    /// A retry: back to queued with backoff, or failed when attempts are used up. Nil if not in flight.
    private func completeRetry(id: String, result: OutboxResult, policy: OutboxRetryPolicy, millis: Int64,
                               _ db: SQLiteConnection) throws -> OutboxState? {
        let attemptsOf = try db.statement("""
            SELECT s.seq, s.attempts FROM \(Self.outboxJoin) WHERE i.id = ?1 AND s.state = 'in_flight'
            """)
        try attemptsOf.bind(id, at: 1)
        let found: (seq: Int64, attempts: Int)? =
            try attemptsOf.step() ? (attemptsOf.int64(at: 0), attemptsOf.int(at: 1)) : nil
        attemptsOf.reset()
        guard let (seq, attempts) = found else { return nil }
        let next = OutboxTransition(result, id: id, attempts: attempts, policy: policy, nowMillis: millis)
        try db.run("""
            UPDATE outbox_state SET state = ?2, last_status = ?3, last_reason = ?4,
                next_attempt_at = coalesce(?5, next_attempt_at), updated_at = ?6
            WHERE seq = ?1
            """, [.integer(seq), .text(next.state.rawValue), next.status.map { .integer(Int64($0)) } ?? .null,
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
        try db.run("UPDATE outbox_state SET state = 'queued' WHERE state = 'in_flight'")
    }

    /// The row with `id`, or nil.
    public func outboxItem(id: String) throws -> OutboxItem? {
        try connection.query("SELECT \(Self.outboxColumns) FROM \(Self.outboxJoin) WHERE i.id = ?1", [.text(id)],
                             row: Self.outboxRow).first
    }

    /// Every row of one push (one API call), in enqueue order.
    public func outboxItems(pushID: String) throws -> [OutboxItem] {
        try connection.query("SELECT \(Self.outboxColumns) FROM \(Self.outboxJoin) WHERE i.push_id = ?1 ORDER BY i.seq",
                             [.text(pushID)], row: Self.outboxRow)
    }

    /// Rows per state; every state is present, zero when none.
    public func outboxCounts() throws -> [OutboxState: Int] {
        var counts = Dictionary(uniqueKeysWithValues: OutboxState.allCases.map { ($0, 0) })
        for (state, count) in try connection.query("SELECT state, count(*) FROM outbox_state GROUP BY state", row: {
            (OutboxState(rawValue: $0.string(at: 0)), $0.int(at: 1))
        }) {
            if let state { counts[state] = count }
        }
        return counts
    }

    /// Rows still to be sent: queued plus in flight.
    public func outboxDepth() throws -> Int {
        try connection.query("SELECT count(*) FROM outbox_state WHERE state IN ('queued', 'in_flight')") {
            $0.int(at: 0)
        }.first ?? 0
    }

    /// Deletes terminal rows last changed before `date`; returns how many.
    @discardableResult
    public func purgeOutbox(olderThan date: Date) throws -> Int {
        try write { db in
            let cutoff = SQLiteValue.integer(date.storeMillis)
            try db.run("""
                DELETE FROM outbox_items WHERE seq IN (SELECT seq FROM outbox_state
                    WHERE state IN ('accepted', 'rejected', 'failed', 'expired') AND updated_at < ?1)
                """, [cutoff])
            return try db.run("""
                DELETE FROM outbox_state
                WHERE state IN ('accepted', 'rejected', 'failed', 'expired') AND updated_at < ?1
                """, [cutoff])
        }
    }
}
