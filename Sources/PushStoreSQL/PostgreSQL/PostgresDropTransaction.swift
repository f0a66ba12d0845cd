import Foundation
import PostgresDriver
import PushStore

/// `DropTransaction` on one PostgreSQL connection inside a transaction whose users are locked
/// (`PostgresDropRepository`).
struct PostgresDropTransaction: DropTransaction {
    let db: PostgresConnection
    /// Whose clock outbox rows are enqueued on (`PostgresClock`).
    let clock: PostgresClock
    /// The database's time when the transaction held its locks, under the database's clock; nil under the
    /// caller's.
    let decidedAt: Date?

    /// See `DropTransaction.now(given:)`: the database's time read once, after the users' locks were granted
    /// (`clock_timestamp()`, not the transaction's start: a report that waited for another on the same users
    /// decides after it, never at a time before the drop that one stored).
    func now(given: Date) -> Date { decidedAt ?? given }

    private static let columns = DropColumn.selectList

    /// One statement for every user's drop (a report reads its two users' in one round trip).
    func pendingDrops(engaging userIDs: [String]) throws -> [String: DropRecord] {
        let rows = try db.query(Self.pendingDropsSQL, [.textArray(userIDs)])
        // A user has at most one engagement (the primary key), so each user comes once.
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.string(at: Self.engagedUserColumn), DropRecord(row: $0)) })
    }

    /// The drops of the users in $1 with the user each engages: the drop found by key from each engagement
    /// (in a transaction that joins by lookup, `PostgresConnection.joinByLookup`).
    static let pendingDropsSQL = """
        SELECT \(columns), e.user_id FROM drops d JOIN drop_engagements e ON e.drop_id = d.id
        WHERE e.user_id = ANY ($1::text[])
        """

    /// Where `pendingDrops(engaging:)` puts the engaged user: after the drop's columns.
    private static let engagedUserColumn = Int32(DropColumn.allCases.count)

    /// Each side of an OR is its own index search (a UNION ALL), whatever the planner's statistics say about
    /// the OR (SQLite scanned every matched drop for it).
    func latestMatch(between first: String, and second: String, since: Date) throws -> DropRecord? {
        try db.query(
            """
            SELECT \(Self.columns) FROM (
                SELECT \(Self.columns) FROM drops
                WHERE state = 'matched' AND initiator_id = $1 AND peer_id = $2 AND matched_at >= $3
                UNION ALL
                SELECT \(Self.columns) FROM drops
                WHERE state = 'matched' AND initiator_id = $2 AND peer_id = $1 AND matched_at >= $3
            ) d
            ORDER BY matched_at DESC, id DESC LIMIT 1
            """, [.text(first), .text(second), .integer(since.storeMillis)]
        ).map(DropRecord.init(row:)).first
    }

    func latestMatch(of userID: String, since: Date) throws -> DropRecord? {
        try db.query(
            """
            SELECT \(Self.columns) FROM (
                SELECT \(Self.columns) FROM drops WHERE state = 'matched' AND initiator_id = $1 AND matched_at >= $2
                UNION ALL
                SELECT \(Self.columns) FROM drops WHERE state = 'matched' AND peer_id = $1 AND matched_at >= $2
            ) d
            ORDER BY matched_at DESC, id DESC LIMIT 1
            """, [.text(userID), .integer(since.storeMillis)]
        ).map(DropRecord.init(row:)).first
    }

    func requests(forDrop dropID: String) throws -> [MateRequestRecord] {
        try PostgresMateRequestRepository.requests(forDrop: dropID, PostgresSession(connection: db))
    }

    /// The drop and both engagements in one statement, which stores nothing when the id is taken.
    func insertPending(_ drop: DropRecord) throws {
        let engaged = try db.query(
            """
            WITH d AS (
                INSERT INTO drops (\(Self.columns)) VALUES ($1, $2, $3, 'pending', $4, $5, NULL, NULL)
                ON CONFLICT (id) DO NOTHING RETURNING id
            )
            INSERT INTO drop_engagements (user_id, drop_id)
            SELECT u.user_id, d.id FROM d, (VALUES ($2::text), ($3::text)) AS u (user_id)
            RETURNING user_id
            """,
            [
                .text(drop.id), .text(drop.initiatorID), .text(drop.peerID), .integer(drop.createdAt.storeMillis),
                .integer(drop.expiresAt.storeMillis),
            ])
        // The engagements' primary key is the invariant: a second pending drop for a user cannot be stored.
        guard engaged.count == 2 else { throw PushStoreError.duplicateID(drop.id) }
    }

    /// The drop's new state and its users freed in one statement.
    func close(_ drop: DropRecord) throws {
        let changed = try db.query(
            """
            WITH c AS (
                UPDATE drops SET state = $2, matched_at = $3, closed_at = $4 WHERE id = $1 AND state = 'pending'
                RETURNING id
            ), freed AS (
                DELETE FROM drop_engagements WHERE drop_id IN (SELECT id FROM c)
            )
            SELECT count(*) FROM c
            """,
            [.text(drop.id), .text(drop.state.rawValue), .integer(drop.matchedAt?.storeMillis), .integer(drop.closedAt?.storeMillis)]
        ).map { $0.int64(at: 0) }.first
        guard changed == 1 else {
            throw PushStoreError.invalidTransition(dropID: drop.id, from: Self.notPending, to: drop.state.rawValue)
        }
    }

    /// The `from` of the error `close` throws when another writer closed the drop first.
    static let notPending = "not pending"

    func insert(_ requests: [MateRequestRecord]) throws {
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
        let stored = try db.query(
            insertRequestsSQL,
            [
                .textArray(requests.map(\.id)), .textArray(requests.map(\.dropID)), .textArray(requests.map(\.senderID)),
                .textArray(requests.map(\.recipientID)), .textArray(requests.map(\.state.rawValue)),
                .integerArray(requests.map { $0.createdAt.storeMillis }), .integerArray(requests.map { $0.answeredAt?.storeMillis }),
            ]
        ).map { $0.string(at: 0) }
        // Any left out? Name the first, by the reason it was.
        guard let missing = requests.first(where: { !stored.contains($0.id) }) else { return }
        guard try db.query("SELECT 1 FROM drops WHERE id = $1", [.text(missing.dropID)]).count == 1 else {
            throw PushStoreError.notFound("drop \(missing.dropID)")
        }
        throw PushStoreError.duplicateID(missing.id)
    }

    func enqueue(_ items: [OutboxItem]) throws {
        try PostgresOutboxRepository.insert(items, clock: clock, db)
    }

    func pendingDrops(expiringBefore now: Date) throws -> [DropRecord] {
        try db.query(
            "SELECT \(Self.columns) FROM drops WHERE state = 'pending' AND expires_at < $1 ORDER BY created_at, id",
            [.integer(now.storeMillis)]
        ).map(DropRecord.init(row:))
    }
}
