import Foundation

/// `DropTransaction` on one PostgreSQL connection inside a transaction whose users are locked
/// (`PostgresDropRepository`).
struct PostgresDropTransaction: DropTransaction {
    let db: PostgresConnection

    private static let columns = PostgresDropRepository.columns

    func pendingDrop(engaging userID: String) throws -> DropRecord? {
        try db.query(
            """
            SELECT \(Self.columns) FROM drops
            WHERE id = (SELECT drop_id FROM drop_engagements WHERE user_id = $1)
            """, [.text(userID)]
        ).map(PostgresDropRepository.record).first
    }

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
        ).map(PostgresDropRepository.record).first
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
        ).map(PostgresDropRepository.record).first
    }

    func requests(forDrop dropID: String) throws -> [MateRequestRecord] {
        try PostgresMateRequestRepository.requests(forDrop: dropID, db)
    }

    func insertPending(_ drop: DropRecord) throws {
        guard try db.query("SELECT 1 FROM drops WHERE id = $1", [.text(drop.id)]).count == 0 else {
            throw PushStoreError.duplicateID(drop.id)
        }
        try db.run(
            "INSERT INTO drops (\(Self.columns)) VALUES ($1, $2, $3, 'pending', $4, $5, NULL, NULL)",
            [
                .text(drop.id), .text(drop.initiatorID), .text(drop.peerID), .integer(drop.createdAt.storeMillis),
                .integer(drop.expiresAt.storeMillis),
            ])
        // The primary key is the invariant: a second pending drop for a user cannot be stored.
        try db.run(
            "INSERT INTO drop_engagements (user_id, drop_id) VALUES ($1, $3), ($2, $3)",
            [.text(drop.initiatorID), .text(drop.peerID), .text(drop.id)])
    }

    func close(_ drop: DropRecord) throws {
        let changed = try db.run(
            "UPDATE drops SET state = $2, matched_at = $3, closed_at = $4 WHERE id = $1 AND state = 'pending'",
            [.text(drop.id), .text(drop.state.rawValue), .integer(drop.matchedAt?.storeMillis), .integer(drop.closedAt?.storeMillis)])
        guard changed == 1 else {
            throw PushStoreError.invalidTransition(dropID: drop.id, from: Self.notPending, to: drop.state.rawValue)
        }
        try db.run("DELETE FROM drop_engagements WHERE drop_id = $1", [.text(drop.id)])
    }

    /// The `from` of the error `close` throws when another writer closed the drop first.
    static let notPending = "not pending"

    func insert(_ requests: [MateRequestRecord]) throws {
        for request in requests { try PostgresMateRequestRepository.insert(request, db) }
        try PostgresWebhookRepository.record(requests.map { WebhookEvents.mateRequest($0, type: .mateRequestCreated) }, db)
    }

    func enqueue(_ items: [OutboxItem]) throws {
        try PostgresOutboxRepository.insert(items, db)
    }

    func pendingDrops(expiringBefore now: Date) throws -> [DropRecord] {
        try db.query(
            "SELECT \(Self.columns) FROM drops WHERE state = 'pending' AND expires_at < $1 ORDER BY created_at, id",
            [.integer(now.storeMillis)]
        ).map(PostgresDropRepository.record)
    }
}
