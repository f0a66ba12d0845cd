import APNSCore

extension PostgresOutboxRepository {
    /// Rows per multi-row INSERT.
    static let insertChunk = 100
    /// Parameters per row of the INSERT.
    private static let rowParameters = 14

    /// See `OutboxRepository.enqueue`: one transaction, all of `items` or, on any error, none; its commit
    /// notifies every instance's listener.
    public func enqueue(_ items: [OutboxItem]) async throws {
        var seen = Set<String>(minimumCapacity: items.count)
        for index in items.indices {
            try items[index].validate()
            guard seen.insert(items[index].id).inserted else { throw PushStoreError.duplicateID(items[index].id) }
        }
        guard !items.isEmpty else { return }
        do {
            try await database.transaction { db in try Self.insert(items, db) }
        } catch let error as PostgresError where error.isUniqueViolation {
            // Ids were unique within the batch, so one exists already; the transaction stored nothing.
            let ids = items.map(\.id)
            let taken = try await database.withConnection { db in
                Set(try db.query("SELECT id FROM outbox WHERE id = ANY ($1::text[])", [.textArray(ids)]).map { $0.string(at: 0) })
            }
            if let first = ids.first(where: taken.contains) { throw PushStoreError.duplicateID(first) }
            throw error
        }
    }

    /// Inserts `items` (already validated, ids unique among them) on `db`, inside the caller's transaction,
    /// and announces them to every instance's listener when (and only if) that transaction commits.
    static func insert(_ items: [OutboxItem], _ db: PostgresConnection) throws {
        guard !items.isEmpty else { return }
        var start = 0
        while start < items.count {
            let chunk = items[start..<min(start + insertChunk, items.count)]
            start = chunk.endIndex
            try db.run(insertSQL(rows: chunk.count), parameters(chunk))
        }
        try db.query("SELECT pg_notify($1, '')", [.text(PostgresDatabase.outboxChannel)])
    }

    /// The INSERT for `rows` rows (`rowParameters` each).
    private static func insertSQL(rows: Int) -> String {
        let values = (0..<rows).map { row in
            let p = (1...rowParameters).map { "$\(row * rowParameters + $0)" }
            return "(\(p[0...10].joined(separator: ", ")), 'queued', 0, \(p[11]), \(p[12]), \(p[12]), \(p[13]))"
        }
        return """
            INSERT INTO outbox (id, push_id, token, topic, push_type, priority, expiration, collapse_id, apns_id, payload, \
            environment, state, attempts, next_attempt_at, created_at, updated_at, channel_id) VALUES \(values.joined(separator: ", "))
            """
    }

    private static func parameters(_ chunk: ArraySlice<OutboxItem>) -> [PostgresValue] {
        var values: [PostgresValue] = []
        values.reserveCapacity(chunk.count * rowParameters)
        for index in chunk.indices {
            let item = chunk[index]
            values += [
                .text(item.id), .text(item.pushID), .text(item.token.hex), .text(item.topic), .text(item.pushType.rawValue),
                .integer(item.priority?.rawValue), .integer(item.expiration), .text(item.collapseID), .text(item.apnsID),
                .bytes(item.payload), .text(item.environment.name), .integer(item.nextAttemptAt.storeMillis),
                .integer(item.createdAt.storeMillis), .text(item.channelID?.rawValue),
            ]
        }
        return values
    }
}
