import Foundation
import PushStore
import SQLiteDriver

/// `DropTransaction` on one SQLite connection inside a write transaction.
struct SQLiteDropTransaction: DropTransaction {
    let db: SQLiteConnection

    private static let columns = DropColumn.selectList

    /// See `DropTransaction.reportState`: one statement (`reportStateSQL`), at the caller's time; of the pair's
    /// matches it returns (one per direction at most, in practice), the latest is taken here.
    func reportState(reporter: String, peer: String, window: Duration, given now: Date) throws -> DropReportState {
        let since = now.addingTimeInterval(-(window / .seconds(1)))
        var pending: [String: DropRecord] = [:]
        var latestMatch: DropRecord?
        _ = try db.query(Self.reportStateSQL, [.text(reporter), .text(peer), .integer(since.storeMillis)]) { row in
            let drop = DropRecord(row: row)
            if let user = row.optionalString(at: DropColumn.end) {
                pending[user] = drop
            } else if latestMatch.map({ Self.isLater(drop, than: $0) }) ?? true {
                latestMatch = drop
            }
        }
        return DropReportState(now: now, pending: pending, latestMatch: latestMatch)
    }

    /// See `DropTransaction.usersWithActiveDevices`: the statement `SQLUserRepository.users(ids:withDevicesIn:includeInvalidated:)`
    /// runs (for a report's two users, one index search each), in this transaction.
    func usersWithActiveDevices(_ ids: [String]) throws -> (users: [String: UserRecord], devices: [String: [DeviceRecord]])? {
        try SQLiteUserRepository.users(ids: ids, withDevicesIncludingInvalidated: false, SQLiteSession(connection: db))
    }

    /// Whether matched `drop` is later than `other` in `latestBetweenSQL`'s order (matched_at, then id).
    private static func isLater(_ drop: DropRecord, than other: DropRecord) -> Bool {
        let (mine, theirs) = (drop.matchedAt?.storeMillis ?? .min, other.matchedAt?.storeMillis ?? .min)
        return mine != theirs ? mine > theirs : drop.id > other.id
    }

    /// The drop engaging ?1, then the one engaging ?2, each followed by the user it engages; then every drop
    /// matched between them at or after ?3 (ms), each followed by NULL. Each of the four parts is one index
    /// search, with no temporary b-tree: an `IN (?1, ?2)` list and an `ORDER BY matched_at, id … LIMIT 1`
    /// per direction made SQLite build and drop one for each report (the plan test says so), which cost
    /// more than the searches themselves.
    static let reportStateSQL = """
        SELECT \(Self.columns), e.user_id FROM drop_engagements e JOIN drops d ON d.id = e.drop_id
        WHERE e.user_id = ?1
        UNION ALL
        SELECT \(Self.columns), e.user_id FROM drop_engagements e JOIN drops d ON d.id = e.drop_id
        WHERE e.user_id = ?2
        UNION ALL
        SELECT \(Self.columns), NULL FROM drops
        WHERE state = 'matched' AND initiator_id = ?1 AND peer_id = ?2 AND matched_at >= ?3
        UNION ALL
        SELECT \(Self.columns), NULL FROM drops
        WHERE state = 'matched' AND initiator_id = ?2 AND peer_id = ?1 AND matched_at >= ?3
        """

    /// The drops engaging the users, read in one statement (`engagedSQL`).
    func pendingDrops(engaging userIDs: [String]) throws -> [String: DropRecord] {
        guard !userIDs.isEmpty else { return [:] }
        var found: [String: DropRecord] = [:]
        let sql = userIDs.count <= Self.engagedSQL.count ? Self.engagedSQL[userIDs.count - 1] : Self.engagedSQL(userIDs.count)
        _ = try db.query(sql, userIDs.map { .text($0) }) { row in found[row.string(at: DropColumn.end)] = DropRecord(row: row) }
        return found
    }

    /// The drops engaging any of `count` users (?1 …), each followed by the user it engages. Like every
    /// statement here, the texts a report or a cancel uses are built once: the statement cache is keyed by
    /// them, and building one per call cost a string each time.
    static func engagedSQL(_ count: Int) -> String {
        """
        SELECT \(Self.columns), e.user_id FROM drop_engagements e JOIN drops d ON d.id = e.drop_id
        WHERE e.user_id IN (\(SQLiteConnection.placeholders(row: 0, perRow: count).joined(separator: ", ")))
        """
    }

    static let engagedSQL = [engagedSQL(1), engagedSQL(2)]

    /// Each side of an OR is its own index search (a UNION ALL): written as one WHERE with an OR, SQLite
    /// scanned every matched drop in a partial index for each report.
    func latestMatch(between first: String, and second: String, since: Date) throws -> DropRecord? {
        try db.query(
            Self.latestBetweenSQL, [.text(first), .text(second), .integer(since.storeMillis)], row: DropRecord.init(row:)
        ).first
    }

    func latestMatch(of userID: String, since: Date) throws -> DropRecord? {
        try db.query(
            Self.latestOfSQL, [.text(userID), .integer(since.storeMillis)], row: DropRecord.init(row:)
        ).first
    }

    /// The latest drop matched between ?1 and ?2 at or after ?3 (ms).
    static let latestBetweenSQL = """
        SELECT \(Self.columns) FROM (
            SELECT \(Self.columns) FROM drops
            WHERE state = 'matched' AND initiator_id = ?1 AND peer_id = ?2 AND matched_at >= ?3
            UNION ALL
            SELECT \(Self.columns) FROM drops
            WHERE state = 'matched' AND initiator_id = ?2 AND peer_id = ?1 AND matched_at >= ?3
        )
        ORDER BY matched_at DESC, id DESC LIMIT 1
        """

    /// The latest drop of ?1 matched at or after ?2 (ms).
    static let latestOfSQL = """
        SELECT \(Self.columns) FROM (
            SELECT \(Self.columns) FROM drops WHERE state = 'matched' AND initiator_id = ?1 AND matched_at >= ?2
            UNION ALL
            SELECT \(Self.columns) FROM drops WHERE state = 'matched' AND peer_id = ?1 AND matched_at >= ?2
        )
        ORDER BY matched_at DESC, id DESC LIMIT 1
        """

    func requests(forDrop dropID: String) throws -> [MateRequestRecord] {
        try SQLiteMateRequestRepository.requests(forDrop: dropID, SQLiteSession(connection: db))
    }

    func insertPending(_ drop: DropRecord) throws {
        do {
            try db.run(
                Self.insertPendingSQL,
                [
                    .text(drop.id), .text(drop.initiatorID), .text(drop.peerID), .integer(drop.createdAt.storeMillis),
                    .integer(drop.expiresAt.storeMillis),
                ])
        } catch {
            guard error.isConstraintViolation else { throw error }
            // The id is the primary key: the statement alone was undone, so this finds a drop stored before.
            guard try SQLiteDropRepository.drop(id: drop.id, SQLiteSession(connection: db)) == nil else { throw PushStoreError.duplicateID(drop.id) }
            throw error
        }
        // The primary key is the invariant: a second pending drop for a user cannot be stored. One row a
        // statement: a statement writing two rows under a foreign key must be undoable alone, so SQLite
        // would copy each page it touches (16 KB) into a statement journal first; one writing a single row
        // needs none.
        try db.run(Self.engageSQL, [.text(drop.initiatorID), .text(drop.id)])
        try db.run(Self.engageSQL, [.text(drop.peerID), .text(drop.id)])
    }

    static let insertPendingSQL = "INSERT INTO drops (\(columns)) VALUES (?1, ?2, ?3, 'pending', ?4, ?5, NULL, NULL)"
    static let engageSQL = "INSERT INTO drop_engagements (user_id, drop_id) VALUES (?1, ?2)"

    func close(_ drop: DropRecord) throws {
        let changed = try db.run(
            Self.closeSQL,
            [
                .text(drop.id), .text(drop.state.rawValue), drop.matchedAt.map { .integer($0.storeMillis) } ?? .null,
                drop.closedAt.map { .integer($0.storeMillis) } ?? .null,
            ])
        guard changed == 1 else {
            throw PushStoreError.invalidTransition(dropID: drop.id, from: "not pending", to: drop.state.rawValue)
        }
        try db.run(Self.disengageSQL, [.text(drop.id)])
    }

    static let closeSQL = "UPDATE drops SET state = ?2, matched_at = ?3, closed_at = ?4 WHERE id = ?1 AND state = 'pending'"
    static let disengageSQL = "DELETE FROM drop_engagements WHERE drop_id = ?1"

    func insert(_ requests: [MateRequestRecord]) throws {
        try Self.insertRequests(requests, db)
        try WebhookQueue.record(requests.map { WebhookEvents.mateRequest($0, type: .mateRequestCreated) }, SQLiteSession(connection: db))
    }

    /// Stores new mate requests on `db`, inside the caller's transaction (the drop rules' match), one INSERT
    /// of one row each: a statement writing several rows under a foreign key must be undoable alone, so
    /// SQLite would first copy each page it touches (16 KB, four b-trees here) into a statement journal;
    /// one writing a single row needs none. The primary key and the drop's foreign key decide; only when
    /// one refuses are the requests looked up, to name the first one refused and why (`notFound` for a
    /// missing drop, `duplicateID`), and the requests stored before it are deleted again.
    static func insertRequests(_ requests: [MateRequestRecord], _ db: SQLiteConnection) throws {
        guard !requests.isEmpty else { return }
        for request in requests { try request.validate() }
        for (index, request) in requests.enumerated() {
            do {
                try db.run(
                    insertRequestSQL,
                    [
                        .text(request.id), .text(request.dropID), .text(request.senderID), .text(request.recipientID),
                        .text(request.state.rawValue), .integer(request.createdAt.storeMillis),
                        request.answeredAt.map { .integer($0.storeMillis) } ?? .null,
                    ])
            } catch {
                guard error.isConstraintViolation else { throw error }
                // The statement alone was undone (the default conflict resolution); the ones before it are
                // undone here, so that a refused call stores none of its requests.
                for stored in requests[..<index] { try db.run(deleteRequestSQL, [.text(stored.id)]) }
                try diagnose(requests, db)
                throw error
            }
        }
    }

    /// Throws why `requests` could not be stored: the first one whose drop is missing or whose id is taken.
    private static func diagnose(_ requests: [MateRequestRecord], _ db: SQLiteConnection) throws {
        var seen = Set<String>()
        for request in requests {
            guard try SQLiteDropRepository.drop(id: request.dropID, SQLiteSession(connection: db)) != nil else {
                throw PushStoreError.notFound("drop \(request.dropID)")
            }
            guard try SQLiteMateRequestRepository.request(id: request.id, SQLiteSession(connection: db)) == nil, seen.insert(request.id).inserted
            else {
                throw PushStoreError.duplicateID(request.id)
            }
        }
    }

    static let insertRequestSQL =
        "INSERT INTO mate_requests (\(MateRequestColumn.selectList)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
    private static let deleteRequestSQL = "DELETE FROM mate_requests WHERE id = ?1"

    func enqueue(_ items: [OutboxItem]) throws {
        guard !items.isEmpty else { return }
        try SQLiteOutboxRepository.insert(items, db)
    }

    func pendingDrops(expiringBefore now: Date) throws -> [DropRecord] {
        try db.query(Self.expiringSQL, [.integer(now.storeMillis)], row: DropRecord.init(row:))
    }

    static let expiringSQL =
        "SELECT \(columns) FROM drops WHERE state = 'pending' AND expires_at < ?1 ORDER BY created_at, id"
}
