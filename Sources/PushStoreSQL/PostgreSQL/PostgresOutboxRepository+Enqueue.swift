import APNSCore
import Foundation
import PostgresDriver
public import PushStore

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
                try await database.withConnection { [clock = database.clock] db in try Self.insert(items, clock: clock, db) }
            } else {
                try await database.transaction { [clock = database.clock] db in try Self.insert(items, clock: clock, db) }
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
    /// transaction commits. Under the database's `clock` their enqueue and due times move onto it: the
    /// newest `createdAt` of each chunk becomes the database's now, and every time of the chunk moves with it
    /// (a row due at its enqueue, as every new row is, is due at once for every instance).
    static func insert(_ items: [OutboxItem], clock: PostgresClock, _ db: PostgresConnection) throws {
        var start = items.startIndex
        while start < items.endIndex {
            let chunk = items[start..<min(start + insertChunk, items.endIndex)]
            start = chunk.endIndex
            let reference = Date(storeMillis: chunk.map(\.createdAt.storeMillis).max() ?? 0)
            try db.query(insertSQL, parameters(chunk) + [.integer(reference.storeMillis), clock.millis(reference)])
        }
        if !items.isEmpty { db.announce(PostgresDatabase.outboxChannel) }
    }

    /// One statement for a whole chunk, its columns as arrays ($1 … $13, in `parameters`' order), then its
    /// runs of rows due at once ($14 first and $15 last position, $16 due, $17 enqueue time), then $18 the
    /// chunk's newest enqueue time and $19 now (ms; NULL: the database's, `PostgresClock`), by whose difference
    /// every time of the chunk moves (`shift`; none under `.caller`, which passes $18 again): the chunk takes
    /// one block of `seq` numbers (`outbox_batch_seq`, 65,536 numbers each, more than `insertChunk`), each row
    /// the next one in array order, and each run goes into `outbox_segments` as one queued range. The rows go
    /// from the arrays into the table directly: collected first (a materialized CTE), they cost 1-3 µs more each.
    private static let insertSQL = """
        WITH b AS MATERIALIZED (
            SELECT nextval('outbox_batch_seq') << 16 AS base, \(PostgresClock.millis("$19")) - $18::bigint AS shift
        ), items AS (
            INSERT INTO outbox_items (id, seq, push_id, token, topic, push_type, priority, expiration, collapse_id,
                apns_id, payload, environment, channel_id, created_at)
            SELECT u.id, b.base + u.position, u.push_id, u.token, u.topic, u.push_type, u.priority, u.expiration,
                u.collapse_id, u.apns_id, u.payload, u.environment, u.channel_id, u.created_at + b.shift
            FROM b, unnest(
                $1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[],
                $9::text[], $10::bytea[], $11::text[], $12::bigint[], $13::text[]
            ) WITH ORDINALITY AS u(id, push_id, token, topic, push_type, priority, expiration, collapse_id, apns_id,
                payload, environment, created_at, channel_id, position)
        )
        INSERT INTO outbox_segments (lo, hi, due, remaining, updated_at)
        SELECT b.base + r.first, b.base + r.last, r.due + b.shift, r.last - r.first + 1, r.enqueued + b.shift
        FROM b, unnest($14::bigint[], $15::bigint[], $16::bigint[], $17::bigint[]) AS r(first, last, due, enqueued)
        """

    private static func parameters(_ chunk: ArraySlice<OutboxItem>) -> [PostgresValue] {
        func column<T>(_ value: (OutboxItem) -> T) -> [T] { chunk.map(value) }
        // Runs of neighbours due at the same time and enqueued at the same time (what a range's rows share).
        var firsts: [Int64?] = []
        var lasts: [Int64?] = []
        var dues: [Int64?] = []
        var enqueued: [Int64?] = []
        for (offset, item) in chunk.enumerated() {
            let position = Int64(offset + 1)
            let due = item.nextAttemptAt.storeMillis
            let created = item.createdAt.storeMillis
            if let last = dues.indices.last, dues[last] == due, enqueued[last] == created {
                lasts[last] = position
            } else {
                firsts.append(position)
                lasts.append(position)
                dues.append(due)
                enqueued.append(created)
            }
        }
        return [
            .textArray(column(\.id)), .textArray(column(\.pushID)), .textArray(column(\.target.tokenColumn)),
            .textArray(column(\.topic)), .textArray(column(\.pushType.rawValue)),
            .integerArray(column { $0.priority.map { Int64($0.rawValue) } }),
            .integerArray(column(\.expiration.column)), .textArray(column(\.collapseID)),
            .textArray(column(\.apnsID?.rawValue)), .byteaArray(column(\.payload)), .textArray(column(\.environment.name)),
            .integerArray(column(\.createdAt.storeMillis)), .textArray(column(\.target.channelColumn)),
            .integerArray(firsts), .integerArray(lasts), .integerArray(dues), .integerArray(enqueued),
        ]
    }
}
