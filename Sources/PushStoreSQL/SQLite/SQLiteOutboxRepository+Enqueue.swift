import APNSCore
public import PushStore
import SQLiteDriver

extension SQLiteOutboxRepository {
    /// Rows per multi-row INSERT: fewer, larger statements cost less per row.
    static let insertChunk = 64

    /// See `OutboxRepository.enqueue`: one transaction, all of `items` or, on any error, none.
    public func enqueue(_ items: [OutboxItem]) async throws {
        var seen = Set<String>(minimumCapacity: items.count)
        for index in items.indices {  // by index: no copy of each item
            try items[index].validate()
            guard seen.insert(items[index].id).inserted else { throw PushStoreError.duplicateID(items[index].id) }
        }
        try await database.write { db in try Self.insert(items, db) }
    }

    /// Inserts validated `items` on `db`, inside the caller's transaction (also other repositories' ones).
    static func insert(_ items: [OutboxItem], _ db: SQLiteConnection) throws {
        // Both tables share `seq`; the write lock is held, so the next free one cannot be taken meanwhile.
        let last = try db.statement("SELECT coalesce(max(seq), 0) FROM outbox_items")
        _ = try last.step()
        var seq = last.int64(at: 0) + 1
        last.reset()
        var start = 0
        while start < items.count {
            let chunk = items[start..<min(start + insertChunk, items.count)]
            start = chunk.endIndex
            do {
                try insert(chunk, firstSeq: seq, db)
                seq += Int64(chunk.count)
            } catch {
                // Ids were unique within the batch, so a constraint failure means one exists already.
                // OR ROLLBACK has undone the whole transaction, so only rows stored before are found.
                if let sqlite = error as? SQLiteError, sqlite.isConstraintViolation,
                    let taken = try chunk.first(where: { try item(id: $0.id, db) != nil })
                {
                    throw PushStoreError.duplicateID(taken.id)
                }
                throw error
            }
        }
    }

    /// Parameters per row of the `outbox_items` and `outbox_state` multi-row INSERTs.
    private static let itemParameters: Int32 = 13
    private static let stateParameters: Int32 = 4

    /// The multi-row INSERTs for `rows` rows: immutable columns, then the initial state.
    ///
    /// The outbox's writes say OR ROLLBACK: a failed constraint ends the whole transaction, which the
    /// callers do on any error anyway. With the default (ABORT), SQLite must be able to undo a single
    /// statement, so every multi-row statement first copies each page it touches to a statement journal.
    private static func insertSQL(rows: Int) -> (items: String, state: String) {
        let items = (0..<rows).map { row in
            "(\(SQLiteConnection.placeholders(row: row, perRow: Int(itemParameters)).joined(separator: ", ")))"
        }
        let state = (0..<rows).map { row in
            let p = SQLiteConnection.placeholders(row: row, perRow: Int(stateParameters))
            return "(\(p[0]), 'queued', 0, \(p[1]), \(p[2]), NULL, NULL, NULL, \(p[3]))"
        }
        return (
            """
            INSERT OR ROLLBACK INTO outbox_items (seq, id, push_id, token, topic, push_type, priority, collapse_id, \
            apns_id, payload, environment, created_at, channel_id) VALUES \(items.joined(separator: ", "))
            """,
            """
            INSERT OR ROLLBACK INTO outbox_state (seq, state, attempts, next_attempt_at, expiration, last_status, \
            last_reason, apns_unique_id, updated_at) VALUES \(state.joined(separator: ", "))
            """
        )
    }

    private static let fullChunkInsertSQL = insertSQL(rows: insertChunk)
    /// The SQL for 1 to 8 rows (a match queues two, a push to one user a few), also built once.
    private static let smallChunkInsertSQL = (1...8).map { insertSQL(rows: $0) }

    /// The SQL for a chunk of `rows`: a full chunk's and a small one's are built once; only other short last
    /// chunks build their own text (building it each time was 2-4% of a drop report's time).
    private static func insertSQL(chunkOf rows: Int) -> (items: String, state: String) {
        if rows == insertChunk { return fullChunkInsertSQL }
        if rows <= smallChunkInsertSQL.count { return smallChunkInsertSQL[rows - 1] }
        return insertSQL(rows: rows)
    }

    private static func insert(_ chunk: ArraySlice<OutboxItem>, firstSeq: Int64, _ db: SQLiteConnection) throws {
        let sql = insertSQL(chunkOf: chunk.count)
        let insertItems = try db.statement(sql.items)
        defer { insertItems.reset() }
        // By index, reading fields in place: iterating the items would copy (retain and release) each one.
        for row in 0..<chunk.count {
            let index = chunk.startIndex + row
            let base = Int32(row) * itemParameters
            try insertItems.bind(firstSeq + Int64(row), at: base + 1)
            try insertItems.bind(chunk[index].id, at: base + 2)
            try insertItems.bind(chunk[index].pushID, at: base + 3)
            try insertItems.bind(chunk[index].target.tokenColumn, at: base + 4)
            try insertItems.bind(chunk[index].topic, at: base + 5)
            try insertItems.bind(chunk[index].pushType.rawValue, at: base + 6)
            try insertItems.bind(chunk[index].priority?.rawValue, at: base + 7)
            try insertItems.bind(chunk[index].collapseID, at: base + 8)
            try insertItems.bind(chunk[index].apnsID?.rawValue, at: base + 9)
            try insertItems.bind(chunk[index].payload, at: base + 10)
            try insertItems.bind(chunk[index].environment.name, at: base + 11)
            try insertItems.bind(chunk[index].createdAt.storeMillis, at: base + 12)
            try insertItems.bind(chunk[index].target.channelColumn, at: base + 13)
        }
        _ = try insertItems.step()
        let insertState = try db.statement(sql.state)
        defer { insertState.reset() }
        for row in 0..<chunk.count {
            let index = chunk.startIndex + row
            let base = Int32(row) * stateParameters
            try insertState.bind(firstSeq + Int64(row), at: base + 1)
            try insertState.bind(chunk[index].nextAttemptAt.storeMillis, at: base + 2)
            try insertState.bind(chunk[index].expiration.column, at: base + 3)
            try insertState.bind(chunk[index].createdAt.storeMillis, at: base + 4)
        }
        _ = try insertState.step()
    }
}
