import APNSCore
public import PushStore
import SQLiteDriver

extension SQLiteOutboxRepository {
    /// Push rows per multi-row INSERT: fewer, larger statements cost less per row.
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

    /// Inserts validated `items` on `db`, inside the caller's transaction (also other repositories' ones): one
    /// push row per run (`OutboxPushRun`), its notifications numbered from the next free `seq` on, and one
    /// range per stretch of runs due at the same time.
    static func insert(_ items: [OutboxItem], _ db: SQLiteConnection) throws {
        guard !items.isEmpty else { return }
        let runs = OutboxPushRun.runs(items)
        // The write lock is held, so the next free `seq` cannot be taken meanwhile.
        var seq = try db.query("SELECT lo + count FROM outbox_pushes ORDER BY lo DESC LIMIT 1") { $0.int64(at: 0) }.first ?? 1
        var rangeStart = seq
        var rangeDue = items[runs[0].range.lowerBound].nextAttemptAt.storeMillis
        var start = 0
        while start < runs.count {
            let chunk = runs[start..<min(start + insertChunk, runs.count)]
            start = chunk.endIndex
            if let run = try firstOverlapping(chunk, db) {
                let taken = try items[run.range].first { try item(id: $0.id, db) != nil }
                throw PushStoreError.duplicateID(taken?.id ?? items[run.range.lowerBound].id)
            }
            try insert(chunk, of: items, firstSeq: seq, db)
            for run in chunk {
                let due = items[run.range.lowerBound].nextAttemptAt.storeMillis
                if due != rangeDue {
                    try insertRange(lo: rangeStart, hi: seq - 1, due: rangeDue, db)
                    (rangeStart, rangeDue) = (seq, due)
                }
                seq += Int64(run.range.count)
            }
        }
        try insertRange(lo: rangeStart, hi: seq - 1, due: rangeDue, db)
    }

    /// The first run of `chunk` whose positions a stored push under the same base already holds (one statement
    /// for the chunk, not one per run: a match's two pushes cost one), or nil.
    private static func firstOverlapping(_ chunk: ArraySlice<OutboxPushRun>, _ db: SQLiteConnection) throws -> OutboxPushRun? {
        let check = try db.statement(overlapSQL(chunkOf: chunk.count))
        defer { check.reset() }
        for row in 0..<chunk.count {
            let run = chunk[chunk.startIndex + row]
            try check.bind(Int64(row), at: Int32(row) * 4 + 1)
            try check.bind(run.base, at: Int32(row) * 4 + 2)
            try check.bind(Int64(run.firstIndex), at: Int32(row) * 4 + 3)
            try check.bind(Int64(run.firstIndex + run.range.count), at: Int32(row) * 4 + 4)
        }
        guard try check.step() else { return nil }
        return chunk[chunk.startIndex + Int(check.int64(at: 0))]
    }

    /// The overlap check for `rows` runs: each run's position in the chunk, base and positions [lo, hi).
    private static func overlapSQL(rows: Int) -> String {
        let values = (0..<rows).map { row in
            "(\(SQLiteConnection.placeholders(row: row, perRow: 4).joined(separator: ", ")))"
        }
        return """
            WITH v(row, base, lo, hi) AS (VALUES \(values.joined(separator: ", ")))
            SELECT v.row FROM v JOIN outbox_pushes p ON p.base = v.base AND p.first_index < v.hi
            WHERE p.first_index + p.count > v.lo ORDER BY v.row LIMIT 1
            """
    }

    /// The overlap check for a few runs (`rows`), parameters as `overlapSQL(rows:)`'s: one index search a run,
    /// in order, the first found returned. The `VALUES` table and the `ORDER BY` of `overlapSQL(rows:)` made
    /// SQLite build two temporary b-trees on every enqueue, a match's two pushes too (the plan test says so).
    private static func fewOverlapSQL(rows: Int) -> String {
        let parts = (0..<rows).map { row in
            let p = SQLiteConnection.placeholders(row: row, perRow: 4)
            return "SELECT \(p[0]) FROM outbox_pushes WHERE base = \(p[1]) AND first_index < \(p[3]) AND first_index + count > \(p[2])"
        }
        return parts.joined(separator: " UNION ALL ") + " LIMIT 1"
    }

    private static let fullChunkOverlapSQL = overlapSQL(rows: insertChunk)
    private static let smallChunkOverlapSQL = (1...8).map { fewOverlapSQL(rows: $0) }

    /// The overlap check for a chunk of `rows` runs (see `firstOverlapping`).
    static func overlapSQL(chunkOf rows: Int) -> String {
        if rows == insertChunk { return fullChunkOverlapSQL }
        if rows <= smallChunkOverlapSQL.count { return smallChunkOverlapSQL[rows - 1] }
        return overlapSQL(rows: rows)
    }

    /// A new range of queued notifications `lo` … `hi`, due at `due`.
    private static func insertRange(lo: Int64, hi: Int64, due: Int64, _ db: SQLiteConnection) throws {
        guard lo <= hi else { return }
        try db.run(
            "INSERT OR ROLLBACK INTO outbox_ranges (lo, hi, due, remaining, updated_at) VALUES (?1, ?2, ?3, ?4, ?3)",
            [.integer(lo), .integer(hi), .integer(due), .integer(hi - lo + 1)])
    }

    /// Parameters per row of the `outbox_pushes` multi-row INSERT.
    private static let pushParameters: Int32 = 16

    /// The multi-row INSERT for `rows` push rows.
    ///
    /// The outbox's writes say OR ROLLBACK: a failed constraint ends the whole transaction, which the
    /// callers do on any error anyway. With the default (ABORT), SQLite must be able to undo a single
    /// statement, so every multi-row statement first copies each page it touches to a statement journal.
    private static func insertSQL(rows: Int) -> String {
        let values = (0..<rows).map { row in
            "(\(SQLiteConnection.placeholders(row: row, perRow: Int(pushParameters)).joined(separator: ", ")))"
        }
        return """
            INSERT OR ROLLBACK INTO outbox_pushes (lo, count, base, first_index, created_at, push_id, topic, push_type, \
            priority, expiration, collapse_id, apns_id, environment, channels, payload, targets) VALUES \
            \(values.joined(separator: ", "))
            """
    }

    private static let fullChunkInsertSQL = insertSQL(rows: insertChunk)
    /// The SQL for 1 to 8 rows (a match queues two pushes, a push to one user a few), also built once.
    private static let smallChunkInsertSQL = (1...8).map { insertSQL(rows: $0) }

    /// The SQL for a chunk of `rows`: a full chunk's and a small one's are built once; only other short last
    /// chunks build their own text (building it each time was 2-4% of a drop report's time).
    private static func insertSQL(chunkOf rows: Int) -> String {
        if rows == insertChunk { return fullChunkInsertSQL }
        if rows <= smallChunkInsertSQL.count { return smallChunkInsertSQL[rows - 1] }
        return insertSQL(rows: rows)
    }

    private static func insert(_ chunk: ArraySlice<OutboxPushRun>, of items: [OutboxItem], firstSeq: Int64, _ db: SQLiteConnection)
        throws
    {
        let insert = try db.statement(insertSQL(chunkOf: chunk.count))
        defer { insert.reset() }
        var seq = firstSeq
        for row in 0..<chunk.count {
            let run = chunk[chunk.startIndex + row]
            let index = run.range.lowerBound
            let base = Int32(row) * pushParameters
            // By index, reading fields in place: copying the item would retain and release each field.
            try insert.bind(seq, at: base + 1)
            try insert.bind(Int64(run.range.count), at: base + 2)
            try insert.bind(run.base, at: base + 3)
            try insert.bind(Int64(run.firstIndex), at: base + 4)
            try insert.bind(items[index].createdAt.storeMillis, at: base + 5)
            try insert.bind(items[index].pushID, at: base + 6)
            try insert.bind(items[index].topic, at: base + 7)
            try insert.bind(items[index].pushType.rawValue, at: base + 8)
            try insert.bind(items[index].priority?.rawValue, at: base + 9)
            try insert.bind(items[index].expiration.column, at: base + 10)
            try insert.bind(items[index].collapseID, at: base + 11)
            try insert.bind(run.apnsIDColumn, at: base + 12)
            try insert.bind(items[index].environment.name, at: base + 13)
            try insert.bind(Int64(items[index].target.isChannel ? 1 : 0), at: base + 14)
            try insert.bind(items[index].payload, at: base + 15)
            try insert.bind(OutboxTargetList.column(items, run.range), at: base + 16)
            seq += Int64(run.range.count)
        }
        _ = try insert.step()
    }
}
