import Foundation
import PostgresDriver
import PushStore

/// The writes of a match, and of mate requests and outbox rows on their own. A match is held, not sent
/// (`match`): it goes out with the outbox rows of its pushes (`enqueue`) and the read of the webhook
/// subscribers, in one round trip, and the transaction's COMMIT follows in the next.
extension PostgresDropTransaction {
    /// See `DropTransaction.match`: held until the outbox rows of its pushes come (`enqueue`), or until the
    /// body ends (`finish`); the checks of `sendMatch` then throw what this threw when it ran at once.
    mutating func match(_ drop: DropRecord, requests: [MateRequestRecord]) throws {
        if staged != nil { return try batchMatch(drop, requests: requests) }
        for request in requests { try request.validate() }
        try finish()
        heldMatch = HeldMatch(drop: drop, requests: requests)
    }

    /// Sends the held match, if any, on its own: for a body that ends after a match without outbox rows
    /// (`PostgresDatabase.runDropTransaction` calls it before the transaction commits).
    mutating func finish() throws {
        guard let held = heldMatch else { return }
        heldMatch = nil
        try sendMatch(held, with: [])
    }

    /// The held match's round trip when there is one (for up to one outbox chunk); else the outbox rows in a
    /// round trip of their own.
    mutating func enqueue(_ items: [OutboxItem]) throws {
        if staged != nil { return batchEnqueue(items) }
        if let held = heldMatch, items.count <= PostgresOutboxRepository.insertChunk {
            heldMatch = nil
            try sendMatch(held, with: items)
            return
        }
        try finish()
        try takeLock()
        try PostgresOutboxRepository.insert(items, clock: clock, db)
    }

    /// One round trip: the drop's match, its users freed and its mate requests stored (`matchSQL`), the
    /// webhook subscribers read, and the outbox rows `items` inserted (at most one chunk, none when empty);
    /// then each answer checked in that order, and the requests' webhook events queued when an endpoint
    /// subscribes (a round trip of their own). A check that fails throws, and the transaction rolls back
    /// with everything the round trip wrote.
    private mutating func sendMatch(_ held: HeldMatch, with items: [OutboxItem]) throws {
        let (drop, requests) = (held.drop, held.requests)
        var statements: [(sql: String, parameters: [PostgresValue])] = [
            (
                Self.matchSQL,
                [
                    .text(drop.id), .text(drop.state.rawValue), .integer(drop.matchedAt?.storeMillis),
                    .integer(drop.closedAt?.storeMillis),
                ] + Self.requestArrays(requests)
            ),
            (WebhookQueue.subscribersSQL, []),
        ]
        if !items.isEmpty { statements.append(PostgresOutboxRepository.insertStatement(items, clock: clock)) }
        let answers = try send(statements)
        let counts = answers[0]
        guard counts.count == 1, counts[0].int64(at: 0) == 1 else {
            throw PushStoreError.invalidTransition(dropID: drop.id, from: Self.notPending, to: drop.state.rawValue)
        }
        guard counts[0].int64(at: 1) == requests.count else {
            // The drop was there (it just matched): an id was taken.
            let ids = Set(
                try db.query("SELECT id FROM mate_requests WHERE id = ANY ($1::text[])", [.textArray(requests.map(\.id))]).map {
                    $0.string(at: 0)
                })
            throw PushStoreError.duplicateID(requests.first { ids.contains($0.id) }?.id ?? drop.id)
        }
        let subscribers = WebhookSubscribers(
            answers[1].map { (id: $0.string(at: 0), events: WebhookEndpoint.events(stored: $0.string(at: 1))) })
        if !subscribers.isEmpty {
            try WebhookQueue.record(
                requests.map { WebhookEvents.mateRequest($0, type: .mateRequestCreated) }, subscribers: subscribers,
                PostgresSession(connection: db))
        }
        guard !items.isEmpty else { return }
        try PostgresOutboxRepository.checkInserted(items, answers[2], db)
        db.announce(PostgresDatabase.outboxChannel)
    }

    /// `close`'s statement ($1 … $4), and the mate requests given as arrays ($5 … $11, in `MateRequestColumn`'s
    /// order) stored only with the drop it closed; returns how many drops it closed and how many requests
    /// it stored (an id already taken is left out).
    static let matchSQL = """
        WITH c AS (
            UPDATE drops SET state = $2, matched_at = $3, closed_at = $4 WHERE id = $1 AND state = 'pending'
            RETURNING id
        ), freed AS (
            DELETE FROM drop_engagements WHERE drop_id IN (SELECT id FROM c)
        ), r AS (
            INSERT INTO mate_requests (\(MateRequestColumn.selectList))
            SELECT r.* FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::bigint[])
                AS r (id, drop_id, sender_id, recipient_id, state, created_at, answered_at)
            WHERE r.drop_id IN (SELECT id FROM c)
            ON CONFLICT (id) DO NOTHING
            RETURNING id
        )
        SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM r)
        """

    /// The columns of `requests` as arrays, in `MateRequestColumn`'s order.
    static func requestArrays(_ requests: [MateRequestRecord]) -> [PostgresValue] {
        [
            .textArray(requests.map(\.id)), .textArray(requests.map(\.dropID)), .textArray(requests.map(\.senderID)),
            .textArray(requests.map(\.recipientID)), .textArray(requests.map(\.state.rawValue)),
            .integerArray(requests.map { $0.createdAt.storeMillis }), .integerArray(requests.map { $0.answeredAt?.storeMillis }),
        ]
    }

    /// The `from` of the error `close` throws when another writer closed the drop first.
    static let notPending = "not pending"

    mutating func insert(_ requests: [MateRequestRecord]) throws {
        if staged != nil { throw PostgresDropBatch.Unbatchable() }
        try takeLock()
        try Self.insertRequests(requests, db)
        try WebhookQueue.record(
            requests.map { WebhookEvents.mateRequest($0, type: .mateRequestCreated) }, PostgresSession(connection: db))
    }

    /// The insert of mate requests given as arrays ($1 … $7, in `MateRequestColumn`'s order), each only if its drop
    /// exists (found by key, in a transaction that joins by lookup) and its id is new; returns the ids stored.
    static let insertRequestsSQL = """
        INSERT INTO mate_requests (\(MateRequestColumn.selectList))
        SELECT r.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[])
            AS r (id, drop_id, sender_id, recipient_id, state, created_at, answered_at)
        WHERE EXISTS (SELECT 1 FROM drops d WHERE d.id = r.drop_id)
        ON CONFLICT (id) DO NOTHING
        RETURNING id
        """

    /// Stores new mate requests on `db` in one statement, inside the caller's transaction (the drop rules'
    /// match): each one's drop must exist (`notFound`), its id must be new (`duplicateID`). Throws when
    /// either fails, which undoes the caller's transaction with whatever it wrote.
    static func insertRequests(_ requests: [MateRequestRecord], _ db: PostgresConnection) throws {
        guard !requests.isEmpty else { return }
        for request in requests { try request.validate() }
        let stored = try db.query(insertRequestsSQL, requestArrays(requests)).map { $0.string(at: 0) }
        // Any left out? Name the first, by the reason it was.
        guard let missing = requests.first(where: { !stored.contains($0.id) }) else { return }
        guard try db.query("SELECT 1 FROM drops WHERE id = $1", [.text(missing.dropID)]).count == 1 else {
            throw PushStoreError.notFound("drop \(missing.dropID)")
        }
        throw PushStoreError.duplicateID(missing.id)
    }
}
