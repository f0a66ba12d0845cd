import Foundation
import PostgresDriver
import PushStore

/// `DropTransaction` on one PostgreSQL connection inside a transaction (`PostgresDatabase.withDropTransaction`)
/// whose advisory lock goes out with its first statement, in the same round trip.
struct PostgresDropTransaction: DropTransaction {
    let db: PostgresConnection
    /// Whose clock outbox rows are enqueued on (`PostgresClock`).
    let clock: PostgresClock
    /// The key of the lock still to take with the next statement (its users, sorted, joined by a space);
    /// nil once taken, or for an operation that takes none.
    private var lockKey: String?
    /// Where the locks taken are counted.
    private let locks: PostgresDropLocks
    /// The database's time once read (after the lock was granted), under the database's clock.
    private var decidedAt: Date?
    /// A match not yet sent: it goes out with the outbox rows of its pushes (`match`, `enqueue`).
    var heldMatch: HeldMatch?
    /// True in a group's transaction (`PostgresDropGroups`), which its last write does not commit.
    let grouped: Bool
    /// In a group's batch (`PostgresDropBatch`): what the group read, as the operation changed it so far,
    /// and what it writes; each step then sends nothing (`PostgresDropTransaction+Batch`).
    var staged: PostgresDropBatch.Staged?

    /// A drop's match with its mate requests, held for the round trip of their outbox rows.
    struct HeldMatch {
        let drop: DropRecord
        let requests: [MateRequestRecord]
    }

    init(db: PostgresConnection, clock: PostgresClock, lockKey: String?, locks: PostgresDropLocks, grouped: Bool = false) {
        self.db = db
        self.clock = clock
        self.lockKey = lockKey
        self.locks = locks
        self.grouped = grouped
    }

    /// Runs `statements` in one round trip, after the lock if it is still to take (`queries`); returns the
    /// rows of each of `statements`. With `committing`, the transaction commits in the same round trip.
    /// A held match goes out first (`finish`): what follows it sees it written.
    mutating func send(
        _ statements: [(sql: String, parameters: [PostgresValue])], committing: Bool = false
    ) throws -> [PostgresRows] {
        try finish()
        guard let key = lockKey else { return try db.queries(statements, committing: committing) }
        lockKey = nil
        locks.record()
        return Array(try db.queries([(Self.lockSQL, Self.lockParameters(key))] + statements, committing: committing).dropFirst())
    }

    /// Takes the lock if it is still to take, in a round trip of its own: for steps whose statements go out
    /// elsewhere (the mate requests', the outbox's).
    mutating func takeLock() throws {
        try finish()
        guard let key = lockKey else { return }
        lockKey = nil
        locks.record()
        try db.query(Self.lockSQL, Self.lockParameters(key))
    }

    /// The lock of the users whose key is $2 (in class $1).
    private static let lockSQL = "SELECT pg_advisory_xact_lock($1::integer, hashtext($2))"
    private static func lockParameters(_ key: String) -> [PostgresValue] { [.integer(PostgresDatabase.dropLockClass), .text(key)] }

    /// The database's time now, in ms (`clock_timestamp()`: a statement after the lock reads it after the
    /// lock was granted).
    private static let clockMillis = "(extract(epoch from clock_timestamp()) * 1000)::bigint"

    /// See `DropTransaction.now(given:)`: under the database's clock, its time read once, after the lock was
    /// granted (`clock_timestamp()`, not the transaction's start: a report that waited for another on the same
    /// users decides after it, never at a time before the drop that one stored); else `given`.
    mutating func now(given: Date) throws -> Date {
        if staged != nil { return batchNow(given: given) }
        guard clock == .database else { return given }
        if let decidedAt { return decidedAt }
        let rows = try send([("SELECT \(Self.clockMillis)", [])])
        let now = Date(storeMillis: rows[0][0].int64(at: 0))
        decidedAt = now
        return now
    }

    /// See `DropTransaction.reportState`: with the lock, one round trip and one statement
    /// (`reportStateSQL`), which also reads the database's time under its clock.
    mutating func reportState(reporter: String, peer: String, window: Duration, given: Date) throws -> DropReportState {
        if staged != nil { return try batchReportState(reporter: reporter, peer: peer, window: window, given: given) }
        let known: Date? = clock == .caller ? given : decidedAt
        let windowMillis = Int64((window / .milliseconds(1)).rounded(.up))
        let rows = try send([
            (Self.reportStateSQL, [.text(reporter), .text(peer), .integer(known?.storeMillis), .integer(windowMillis)])
        ])[0]
        var pending: [String: DropRecord] = [:]
        var latestMatch: DropRecord?
        var now = known ?? given
        for index in 0..<rows.count {
            let row = rows[index]
            now = known ?? Date(storeMillis: row.int64(at: Self.reportStateNowColumn))
            guard row.optionalString(at: 0) != nil else { continue }
            let drop = DropRecord(row: row)
            if let user = row.optionalString(at: DropColumn.end) { pending[user] = drop } else { latestMatch = drop }
        }
        if clock == .database { decidedAt = now }
        return DropReportState(now: now, pending: pending, latestMatch: latestMatch)
    }

    /// The drops engaging $1 or $2, each followed by the user it engages, then the latest drop matched
    /// between them at or after the time less $4 ms, followed by NULL; every row ends with the time ($3, or
    /// the database's when NULL), and a row of NULLs but the time stands for none. Each user's drop is found
    /// by key from their engagement (in a transaction that joins by lookup), each side of the match by its index.
    static let reportStateSQL = """
        WITH t AS MATERIALIZED (SELECT coalesce($3::bigint, \(clockMillis)) AS now)
        SELECT x.*, t.now FROM t LEFT JOIN LATERAL (
            SELECT \(columns), e.user_id FROM drop_engagements e JOIN drops d ON d.id = e.drop_id
            WHERE e.user_id IN ($1::text, $2::text)
            UNION ALL
            (SELECT \(columns), NULL FROM (
                SELECT \(columns) FROM drops
                WHERE state = 'matched' AND initiator_id = $1 AND peer_id = $2 AND matched_at >= t.now - $4::bigint
                UNION ALL
                SELECT \(columns) FROM drops
                WHERE state = 'matched' AND initiator_id = $2 AND peer_id = $1 AND matched_at >= t.now - $4::bigint
            ) m ORDER BY matched_at DESC, id DESC LIMIT 1)
        ) x ON true
        """

    /// Where `reportStateSQL` puts the time: after the drop's columns and the engaged user.
    private static let reportStateNowColumn = DropColumn.end + 1

    static let columns = DropColumn.selectList

    /// See `DropTransaction.usersWithActiveDevices`: in a batch, from the group's read; else one statement
    /// (`PostgresDropBatch.peopleSQL`), with the lock when it is still to take.
    mutating func usersWithActiveDevices(_ ids: [String]) throws -> (users: [String: UserRecord], devices: [String: [DeviceRecord]])? {
        if staged != nil { return try batchUsersWithActiveDevices(ids) }
        let rows = try send([(PostgresDropBatch.peopleSQL, [.textArray(Array(Set(ids)))])])[0]
        return PostgresUserRepository.collect((0..<rows.count).map { PostgresUserRepository.userWithDevice(rows[$0]) })
    }

    /// One statement for every user's drop (a report reads its two users' in one round trip).
    mutating func pendingDrops(engaging userIDs: [String]) throws -> [String: DropRecord] {
        if staged != nil { return try batchPendingDrops(engaging: userIDs) }
        let rows = try send([(Self.pendingDropsSQL, [.textArray(userIDs)])])[0]
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
    mutating func latestMatch(between first: String, and second: String, since: Date) throws -> DropRecord? {
        if staged != nil { return try batchLatestMatch(between: first, and: second, since: since) }
        return try send([
            (
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
            )
        ])[0].map(DropRecord.init(row:)).first
    }

    mutating func latestMatch(of userID: String, since: Date) throws -> DropRecord? {
        if staged != nil { throw PostgresDropBatch.Unbatchable() }
        return try send([
            (
                """
                SELECT \(Self.columns) FROM (
                    SELECT \(Self.columns) FROM drops WHERE state = 'matched' AND initiator_id = $1 AND matched_at >= $2
                    UNION ALL
                    SELECT \(Self.columns) FROM drops WHERE state = 'matched' AND peer_id = $1 AND matched_at >= $2
                ) d
                ORDER BY matched_at DESC, id DESC LIMIT 1
                """, [.text(userID), .integer(since.storeMillis)]
            )
        ])[0].map(DropRecord.init(row:)).first
    }

    mutating func requests(forDrop dropID: String) throws -> [MateRequestRecord] {
        if staged != nil { return try batchRequests(forDrop: dropID) }
        try takeLock()
        return try PostgresMateRequestRepository.requests(forDrop: dropID, PostgresSession(connection: db))
    }

    /// The drop and both engagements (in user-id order, so that two transactions engaging the same users
    /// wait for each other in one order) in one statement, which commits the transaction in the same round
    /// trip (`DropTransaction.insertPending` is its last write), unless it runs in a group's transaction,
    /// which commits once for all its operations. A user engaged meanwhile by another
    /// operation's drop makes it fail on the engagements' key: the transaction runs again on what is stored.
    mutating func insertPending(_ drop: DropRecord) throws {
        if staged != nil { return try batchInsertPending(drop) }
        do {
            _ = try send(
                [
                    (
                        Self.insertPendingSQL,
                        [
                            .text(drop.id), .text(drop.initiatorID), .text(drop.peerID), .integer(drop.createdAt.storeMillis),
                            .integer(drop.expiresAt.storeMillis),
                        ]
                    )
                ], committing: !grouped)
        } catch let error as PostgresError where error.isUniqueViolation {
            if error.message.contains("drop_engagements_pkey") {
                throw PushStoreError.invalidTransition(dropID: drop.id, from: Self.notPending, to: DropState.pending.rawValue)
            }
            throw PushStoreError.duplicateID(drop.id)
        }
    }

    static let insertPendingSQL = """
        WITH d AS (
            INSERT INTO drops (\(columns)) VALUES ($1, $2, $3, 'pending', $4, $5, NULL, NULL) RETURNING id
        )
        INSERT INTO drop_engagements (user_id, drop_id)
        SELECT u.user_id, d.id FROM d, (VALUES ($2::text), ($3::text)) AS u (user_id) ORDER BY u.user_id
        """

    /// The drop's new state and its users freed in one statement.
    mutating func close(_ drop: DropRecord) throws {
        if staged != nil { return try batchClose(drop) }
        let changed = try send([
            (
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
            )
        ])[0].map { $0.int64(at: 0) }.first
        guard changed == 1 else {
            throw PushStoreError.invalidTransition(dropID: drop.id, from: Self.notPending, to: drop.state.rawValue)
        }
    }

    mutating func pendingDrops(expiringBefore now: Date) throws -> [DropRecord] {
        if staged != nil { throw PostgresDropBatch.Unbatchable() }
        return try send([
            (
                "SELECT \(Self.columns) FROM drops WHERE state = 'pending' AND expires_at < $1 ORDER BY created_at, id",
                [.integer(now.storeMillis)]
            )
        ])[0].map(DropRecord.init(row:))
    }
}
