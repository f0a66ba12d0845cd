import APNSCore

extension PostgresOutboxRepository {
    /// Rows per INSERT statement: a batch up to this size is one statement (and one round trip).
    static let insertChunk = 5_000

    /// See `OutboxRepository.enqueue`: all of `items` or, on any error, none; a batch of up to `insertChunk`
    /// rows is one statement committing on its own, a larger one a transaction of several. The commit
    /// notifies every instance's listener.
    public func enqueue(_ items: [OutboxItem]) async throws {
        var seen = Set<String>(minimumCapacity: items.count)
        for index in items.indices {
            try items[index].validate()
            guard seen.insert(items[index].id).inserted else { throw PushStoreError.duplicateID(items[index].id) }
        }
        guard !items.isEmpty else { return }
        do {
            if items.count <= Self.insertChunk {
                try await database.withConnection { db in try Self.insert(items, db) }
            } else {
                try await database.transaction { db in try Self.insert(items, db) }
            }
        } catch let error as PostgresError where error.isUniqueViolation {
            // Ids were unique within the batch, so one exists already; nothing was stored.
            let ids = items.map(\.id)
            let taken = try await database.withConnection { db in
                Set(
                    try db.query("SELECT id FROM outbox_items WHERE id = ANY ($1::text[])", [.textArray(ids)])
                        .map { $0.string(at: 0) })
            }
            if let first = ids.first(where: taken.contains) { throw PushStoreError.duplicateID(first) }
            throw error
        }
    }

    /// Inserts `items` (already validated, ids unique among them) on `db`, inside the caller's transaction
    /// when there is one, and announces them to every instance's listener when (and only if) that
    /// transaction commits.
    static func insert(_ items: [OutboxItem], _ db: PostgresConnection) throws {
        var start = items.startIndex
        while start < items.endIndex {
            let chunk = items[start..<min(start + insertChunk, items.endIndex)]
            start = chunk.endIndex
            try db.query(insertSQL, parameters(chunk))
        }
        if !items.isEmpty { db.announce(PostgresDatabase.outboxChannel) }
    }

    /// One statement for a whole chunk, its columns as arrays ($1 … $14, in `parameters`' order): each row
    /// takes the next `seq` in array order, then goes into both tables.
    private static let insertSQL = """
        WITH v AS MATERIALIZED (
            SELECT nextval('outbox_seq') AS seq, u.* FROM unnest(
                $1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[],
                $9::text[], $10::bytea[], $11::text[], $12::bigint[], $13::bigint[], $14::text[]
            ) AS u(id, push_id, token, topic, push_type, priority, expiration, collapse_id, apns_id, payload,
                environment, next_attempt_at, created_at, channel_id)
        ), items AS (
            INSERT INTO outbox_items (id, seq, push_id, token, topic, push_type, priority, expiration, collapse_id,
                apns_id, payload, environment, channel_id, created_at)
            SELECT id, seq, push_id, token, topic, push_type, priority, expiration, collapse_id,
                apns_id, payload, environment, channel_id, created_at FROM v
        )
        INSERT INTO outbox_state (id, seq, state, attempts, next_attempt_at, expiration, updated_at, due)
        SELECT id, seq, 'queued', 0, next_attempt_at, expiration, created_at, next_attempt_at FROM v
        """

    private static func parameters(_ chunk: ArraySlice<OutboxItem>) -> [PostgresValue] {
        func column<T>(_ value: (OutboxItem) -> T) -> [T] { chunk.map(value) }
        return [
            .textArray(column(\.id)), .textArray(column(\.pushID)), .textArray(column(\.token.hex)),
            .textArray(column(\.topic)), .textArray(column(\.pushType.rawValue)),
            .integerArray(column { $0.priority.map { Int64($0.rawValue) } }),
            .integerArray(column { $0.expiration.map(Int64.init) }), .textArray(column(\.collapseID)),
            .textArray(column(\.apnsID)), .byteaArray(column(\.payload)), .textArray(column(\.environment.name)),
            .integerArray(column(\.nextAttemptAt.storeMillis)), .integerArray(column(\.createdAt.storeMillis)),
            .textArray(column(\.channelID?.rawValue)),
        ]
    }
}
