import APNSCore
import Foundation
import PostgresDriver
public import PushStore

extension PostgresOutboxRepository {
    /// Notifications per INSERT statement: a batch up to this size is one statement (and one round trip).
    static let insertChunk = 5_000

    /// See `OutboxRepository.enqueue`: all of `items` or, on any error, none; a batch of up to `insertChunk`
    /// notifications is one statement committing on its own, a larger one a transaction of several. The
    /// commit notifies every instance's listener.
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
            // Ids were unique within the batch, so one was stored meanwhile (by another instance); nothing was.
            let taken = try await database.withConnection { db in try Self.storedIDs(items.map(\.id), db) }
            if let first = items.first(where: { taken.contains($0.id) }) { throw PushStoreError.duplicateID(first.id) }
            throw error
        }
    }

    /// Inserts `items` (already validated, ids unique among them) on `db`, inside the caller's transaction
    /// when there is one, and announces them to every instance's listener when (and only if) that
    /// transaction commits; throws `PushStoreError.duplicateID` (having stored nothing of the chunk) when
    /// one of their ids is stored already. Under the database's `clock` their enqueue and due times move
    /// onto it: the newest `createdAt` of each chunk becomes the database's now, and every time of the chunk
    /// moves with it (a notification due at its enqueue, as every new one is, is due at once for every
    /// instance).
    static func insert(_ items: [OutboxItem], clock: PostgresClock, _ db: PostgresConnection) throws {
        var start = items.startIndex
        while start < items.endIndex {
            let chunk = Array(items[start..<min(start + insertChunk, items.endIndex)])
            start += chunk.count
            let statement = insertStatement(chunk, clock: clock)
            try checkInserted(chunk, db.query(statement.sql, statement.parameters), db)
        }
        if !items.isEmpty { db.announce(PostgresDatabase.outboxChannel) }
    }

    /// The one statement that inserts `chunk` (up to `insertChunk` items, validated, ids unique among them),
    /// for a caller that sends it in a round trip of its own making; `checkInserted` reads its answer.
    static func insertStatement(_ chunk: [OutboxItem], clock: PostgresClock) -> (sql: String, parameters: [PostgresValue]) {
        let reference = Date(storeMillis: chunk.map(\.createdAt.storeMillis).max() ?? 0)
        return (insertSQL, parameters(chunk) + [.integer(reference.storeMillis), clock.millis(reference)])
    }

    /// Throws `PushStoreError.duplicateID` when `answer`, that of `insertStatement(chunk)`, says it stored
    /// nothing because one of the ids is stored already (which the caller's transaction then undoes).
    static func checkInserted(_ chunk: [OutboxItem], _ answer: PostgresRows, _ db: PostgresConnection) throws {
        guard answer[0].int(at: 0) > 0 else { return }
        let taken = try storedIDs(chunk.map(\.id), db)
        throw PushStoreError.duplicateID(chunk.first { taken.contains($0.id) }?.id ?? chunk[0].id)
    }

    /// Which of `ids` are stored (each found by its base and position, `OutboxPushRun.key(of:)`).
    static func storedIDs(_ ids: [String], _ db: PostgresConnection) throws -> Set<String> {
        let keys = ids.map(OutboxPushRun.key(of:))
        let found = try db.query(
            """
            SELECT k.n FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS k(base, pos, n)
            WHERE EXISTS (SELECT 1 FROM (SELECT p.first_index, p.count FROM outbox_pushes p
                WHERE p.base = k.base AND p.first_index <= k.pos ORDER BY p.first_index DESC LIMIT 1) p
                WHERE p.first_index + p.count > k.pos)
            """, [.textArray(keys.map(\.base)), .integerArray(keys.map { Int64($0.index) })])
        return Set(found.map { ids[$0.int(at: 0) - 1] })
    }

    /// One statement for a whole chunk: its pushes (`OutboxPushRun`) as arrays ($1 … $17, in `parameters`'
    /// order: each push's first position in the chunk, count, base, first index, then what it sends, its due
    /// and enqueue times), then its ranges of neighbours due at once under one topic ($18 first and $19 last
    /// position, $20 due, $21 enqueue time), then $22 the chunk's newest enqueue time and $23 now (ms; NULL:
    /// the database's, `PostgresClock`), by whose difference every time of the chunk moves (`shift`; none
    /// under `.caller`, which passes $22 again). The chunk takes one block of `seq` numbers
    /// (`outbox_batch_seq`, 65,536 numbers each, more than `insertChunk`), each notification the next one in
    /// array order. Nothing is written when a push would hold a position a stored push holds (`clash`, one
    /// probe of `outbox_pushes_by_id` per push): the statement returns how many would.
    private static let insertSQL = """
        WITH b AS MATERIALIZED (
            SELECT nextval('outbox_batch_seq') << 16 AS base, \(PostgresClock.millis("$23")) - $22::bigint AS shift
        ), u AS MATERIALIZED (
            SELECT * FROM unnest(
                $1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::bigint[],
                $9::bigint[], $10::text[], $11::text[], $12::bytea[], $13::text[], $14::bigint[], $15::text[],
                $16::bigint[], $17::bigint[]
            ) AS u(pos, count, base, first_index, push_id, topic, push_type, priority, expiration, collapse_id,
                apns_id, payload, environment, channels, targets, due, created_at)
        ), clash AS MATERIALIZED (
            SELECT 1 FROM u CROSS JOIN LATERAL (SELECT p.first_index, p.count FROM outbox_pushes p
                WHERE p.base = u.base AND p.first_index < u.first_index + u.count ORDER BY p.first_index DESC LIMIT 1) p
            WHERE p.first_index + p.count > u.first_index
        ), pushes AS (
            INSERT INTO outbox_pushes (lo, count, base, first_index, push_id, topic, push_type, priority, expiration,
                collapse_id, apns_id, payload, environment, channels, targets, due, created_at, settled_at)
            SELECT b.base + u.pos, u.count, u.base, u.first_index, u.push_id, u.topic, u.push_type, u.priority,
                u.expiration, u.collapse_id, u.apns_id, u.payload, u.environment, u.channels = 1, u.targets, u.due + b.shift, u.created_at + b.shift, u.created_at + b.shift
            FROM b, u WHERE NOT EXISTS (SELECT 1 FROM clash)
        ), ranges AS (
            INSERT INTO outbox_segments (lo, hi, due, remaining, updated_at)
            SELECT b.base + r.first, b.base + r.last, r.due + b.shift, r.last - r.first + 1, r.enqueued + b.shift
            FROM b, unnest($18::bigint[], $19::bigint[], $20::bigint[], $21::bigint[]) AS r(first, last, due, enqueued)
            WHERE NOT EXISTS (SELECT 1 FROM clash)
        )
        SELECT count(*) FROM clash
        """

    private static func parameters(_ chunk: [OutboxItem]) -> [PostgresValue] {
        let runs = OutboxPushRun.runs(chunk)
        func column<T>(_ value: (OutboxItem) -> T) -> [T] { runs.map { value(chunk[$0.range.lowerBound]) } }
        // Runs of neighbours due at the same time, enqueued at the same time, under one topic (what a
        // range's notifications share: its topic is its first push's, which the metrics read).
        var firsts: [Int64?] = []
        var lasts: [Int64?] = []
        var dues: [Int64?] = []
        var enqueued: [Int64?] = []
        var topic = ""
        for index in chunk.indices {
            let due = chunk[index].nextAttemptAt.storeMillis
            let created = chunk[index].createdAt.storeMillis
            if let last = dues.indices.last, dues[last] == due, enqueued[last] == created, chunk[index].topic == topic {
                lasts[last] = Int64(index)
            } else {
                firsts.append(Int64(index))
                lasts.append(Int64(index))
                dues.append(due)
                enqueued.append(created)
                topic = chunk[index].topic
            }
        }
        return [
            .integerArray(runs.map { Int64($0.range.lowerBound) }), .integerArray(runs.map { Int64($0.range.count) }),
            .textArray(runs.map(\.base)), .integerArray(runs.map { Int64($0.firstIndex) }),
            .textArray(column(\.pushID)), .textArray(column(\.topic)), .textArray(column(\.pushType.rawValue)),
            .integerArray(column { $0.priority.map { Int64($0.rawValue) } }), .integerArray(column(\.expiration.column)),
            .textArray(column(\.collapseID)), .textArray(runs.map(\.apnsIDColumn)),
            .byteaArray(column(\.payload)), .textArray(column(\.environment.name)),
            .integerArray(column { $0.target.isChannel ? 1 : 0 }), .textArray(runs.map { OutboxTargetList.column(chunk, $0.range) }),
            .integerArray(column(\.nextAttemptAt.storeMillis)), .integerArray(column(\.createdAt.storeMillis)),
            .integerArray(firsts), .integerArray(lasts), .integerArray(dues), .integerArray(enqueued),
        ]
    }
}
