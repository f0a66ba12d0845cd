import APNSCore
import Foundation
import PushStore

/// `DeviceRepository` on either SQL database: the `devices` table.
struct SQLDeviceRepository<Database: SQLDatabase>: DeviceRepository {
    /// The database holding the table.
    let database: Database

    /// The columns of the table (`DeviceColumn`, shared by both SQL backends).
    typealias Column = DeviceColumn

    private static var columns: String { Column.selectList }

    /// See `DeviceRepository.register`: one upsert that gives back the stored row (`SQLSession.upsert`).
    func register(
        token: DeviceToken, topic: String, userID: String, environment: APNSEnvironment,
        now: Date
    ) async throws -> DeviceRecord {
        try StoreValidation.required(topic, field: "topic")
        try StoreValidation.userID(userID)
        try StoreValidation.environment(environment.name)
        return try await database.onConnection { db in
            let stored = try db.upsert(
                """
                INSERT INTO devices (token, topic, user_id, environment, registered_at, last_seen)
                VALUES (?1, ?2, ?3, ?4, ?5, ?5)
                ON CONFLICT (token, topic) DO UPDATE SET user_id = excluded.user_id,
                    environment = excluded.environment, registered_at = excluded.registered_at,
                    last_seen = excluded.last_seen, invalidated_at = NULL, invalid_reason = NULL
                """, [.text(token.hex), .text(topic), .text(userID), .text(environment.name), .date(now)],
                returning: Self.columns, row: DeviceRecord.init(row:),
                reread: { try Self.device(token: token, topic: topic, db) })
            guard let stored else { throw PushStoreError.notFound("device \(token) \(topic)") }
            return stored
        }
    }

    /// See `DeviceRepository.remove(token:)`.
    func remove(token: DeviceToken) async throws -> Int {
        try await database.run("DELETE FROM devices WHERE token = ?1", [.text(token.hex)])
    }

    /// See `DeviceRepository.devices(forUser:includeInvalidated:)`.
    func devices(forUser userID: String, includeInvalidated: Bool) async throws -> [DeviceRecord] {
        try await database.query(
            "SELECT \(Self.columns) FROM devices WHERE user_id = ?1\(Self.filter(includeInvalidated)) \(Self.order)",
            [.text(userID)], row: DeviceRecord.init(row:))
    }

    /// See `DeviceRepository.devices(forUsers:includeInvalidated:)`: one read for all of them
    /// (`SQLDatabase.groupedRead`): on PostgreSQL one statement, on SQLite one statement a user, grouped
    /// with the reads around it.
    func devices(forUsers userIDs: [String], includeInvalidated: Bool) async throws -> [String: [DeviceRecord]] {
        let users = Array(Set(userIDs))
        let filter = Self.filter(includeInvalidated)
        let rows = try await database.groupedRead { db in
            try db.query(
                { "SELECT \(Self.columns) FROM devices WHERE user_id \($0)\(filter) \(Self.order)" }, [], inList: users,
                chunk: 1, row: DeviceRecord.init(row:))
        }
        var found = Dictionary(uniqueKeysWithValues: users.map { ($0, [DeviceRecord]()) })
        for device in rows { found[device.userID, default: []].append(device) }
        return found
    }

    private static func filter(_ includeInvalidated: Bool) -> String {
        includeInvalidated ? "" : " AND invalidated_at IS NULL"
    }

    private static var order: String { "ORDER BY registered_at, token, topic" }

    /// See `DeviceRepository.device(token:topic:)`.
    func device(token: DeviceToken, topic: String) async throws -> DeviceRecord? {
        try await database.onConnection { try Self.device(token: token, topic: topic, $0) }
    }

    /// See `DeviceRepository.devices(tokens:topic:)`: on PostgreSQL one statement, the tokens as one array
    /// parameter; on SQLite statements of up to 500 tokens each, all in one turn of the database actor.
    func devices(tokens: [DeviceToken], topic: String) async throws -> [DeviceToken: DeviceRecord] {
        guard !tokens.isEmpty else { return [:] }
        let hex = tokens.map(\.hex)
        return try await database.onConnection { db in
            let rows = try db.query(
                { "SELECT \(Self.columns) FROM devices WHERE topic = ?1 AND token \($0)" }, [.text(topic)], inList: hex,
                row: DeviceRecord.init(row:))
            return Dictionary(rows.map { ($0.token, $0) }, uniquingKeysWith: { _, last in last })
        }
    }

    /// See `DeviceRepository.invalidate`: Apple's rule (`DeviceInvalidationRule`) on an active registration,
    /// read in the transaction that changes it (on PostgreSQL `FOR UPDATE`, so a registration racing the
    /// invalidation on another instance is decided once).
    func invalidate(
        token: DeviceToken, topic: String, reason: APNSRejectionReason,
        at timestamp: Date
    ) async throws -> Bool {
        try await database.inTransaction { db in
            guard let current = try Self.device(token: token, topic: topic, db, lock: db.dialect.forUpdate),
                current.isActive,
                DeviceInvalidationRule.invalidates(reason: reason, timestamp: timestamp, registeredAt: current.registeredAt)
            else { return false }
            try db.run(
                "UPDATE devices SET invalidated_at = ?3, invalid_reason = ?4 WHERE token = ?1 AND topic = ?2",
                [.text(token.hex), .text(topic), .date(timestamp), .text(reason.rawValue)])
            try WebhookQueue.record(
                [WebhookEvents.deviceInvalidated(current, reason: reason, timestamp: timestamp)], db)
            return true
        }
    }

    private static func device(token: DeviceToken, topic: String, _ db: some SQLSession, lock: String = "") throws
        -> DeviceRecord?
    {
        try db.query(
            "SELECT \(columns) FROM devices WHERE token = ?1 AND topic = ?2\(lock)", [.text(token.hex), .text(topic)],
            row: DeviceRecord.init(row:)
        ).first
    }
}

/// The devices of a SQLite database.
typealias SQLiteDeviceRepository = SQLDeviceRepository<SQLiteDatabase>
/// The devices of a PostgreSQL database.
typealias PostgresDeviceRepository = SQLDeviceRepository<PostgresDatabase>
