public import APNSCore
public import Foundation
import PostgresDriver
public import PushStore

/// `DeviceRepository` on a `PostgresDatabase`: the `devices` table.
public struct PostgresDeviceRepository: DeviceRepository {
    /// The database holding the table.
    public let database: PostgresDatabase
    /// The repository over `database`.
    public init(database: PostgresDatabase) { self.database = database }

    /// The columns of the table (`DeviceColumn`, shared by both SQL backends).
    typealias Column = DeviceColumn

    private static let columns = Column.selectList

    private static func record(_ row: PostgresRow) -> DeviceRecord {
        DeviceRecord(row: row)
    }

    /// See `DeviceRepository.register`: one upsert that returns the stored row.
    public func register(
        token: DeviceToken, topic: String, userID: String, environment: APNSEnvironment,
        now: Date
    ) async throws -> DeviceRecord {
        try StoreValidation.required(topic, field: "topic")
        try StoreValidation.userID(userID)
        try StoreValidation.environment(environment.name)
        return try await database.withConnection { db in
            let rows = try db.query(
                """
                INSERT INTO devices (token, topic, user_id, environment, registered_at, last_seen)
                VALUES ($1, $2, $3, $4, $5, $5)
                ON CONFLICT (token, topic) DO UPDATE SET user_id = excluded.user_id,
                    environment = excluded.environment, registered_at = excluded.registered_at,
                    last_seen = excluded.last_seen, invalidated_at = NULL, invalid_reason = NULL
                RETURNING \(Self.columns)
                """,
                [.text(token.hex), .text(topic), .text(userID), .text(environment.name), .integer(now.storeMillis)])
            guard rows.count == 1 else { throw PushStoreError.notFound("device \(token) \(topic)") }
            return Self.record(rows[0])
        }
    }

    /// See `DeviceRepository.remove(token:)`.
    public func remove(token: DeviceToken) async throws -> Int {
        try await database.withConnection { try $0.run("DELETE FROM devices WHERE token = $1", [.text(token.hex)]) }
    }

    /// See `DeviceRepository.devices(forUser:includeInvalidated:)`.
    public func devices(forUser userID: String, includeInvalidated: Bool) async throws -> [DeviceRecord] {
        try await devices(forUsers: [userID], includeInvalidated: includeInvalidated)[userID] ?? []
    }

    /// See `DeviceRepository.devices(forUsers:includeInvalidated:)`: one statement for all of them.
    public func devices(forUsers userIDs: [String], includeInvalidated: Bool) async throws -> [String: [DeviceRecord]] {
        let filter = includeInvalidated ? "" : " AND invalidated_at IS NULL"
        let users = Array(Set(userIDs))
        let rows = try await database.withConnection { db in
            try db.query(
                """
                SELECT \(Self.columns) FROM devices WHERE user_id = ANY($1::text[])\(filter)
                ORDER BY registered_at, token, topic
                """, [.textArray(users)]
            ).map(Self.record)
        }
        var found = Dictionary(uniqueKeysWithValues: users.map { ($0, [DeviceRecord]()) })
        for device in rows { found[device.userID, default: []].append(device) }
        return found
    }

    /// See `DeviceRepository.device(token:topic:)`.
    public func device(token: DeviceToken, topic: String) async throws -> DeviceRecord? {
        try await database.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM devices WHERE token = $1 AND topic = $2", [.text(token.hex), .text(topic)])
                .map(Self.record).first
        }
    }

    /// See `DeviceRepository.devices(tokens:topic:)`: one statement, the tokens as one array parameter.
    public func devices(tokens: [DeviceToken], topic: String) async throws -> [DeviceToken: DeviceRecord] {
        guard !tokens.isEmpty else { return [:] }
        let list = PostgresValue.textArray(tokens.map(\.hex))
        return try await database.withConnection { db in
            var found: [DeviceToken: DeviceRecord] = [:]
            let rows = try db.query(
                "SELECT \(Self.columns) FROM devices WHERE topic = $1 AND token = ANY ($2::text[])", [.text(topic), list])
            for device in rows.map(Self.record) { found[device.token] = device }
            return found
        }
    }

    /// See `DeviceRepository.invalidate`: Apple's rule (`DeviceInvalidationRule`) applied to the row locked
    /// with `FOR UPDATE`, so a registration racing the invalidation on another instance is decided once.
    public func invalidate(
        token: DeviceToken, topic: String, reason: APNSRejectionReason,
        at timestamp: Date
    ) async throws -> Bool {
        try await database.transaction { db in
            let rows = try db.query(
                "SELECT \(Self.columns) FROM devices WHERE token = $1 AND topic = $2 FOR UPDATE", [.text(token.hex), .text(topic)])
            guard let current = rows.map(Self.record).first, current.isActive,
                DeviceInvalidationRule.invalidates(reason: reason, timestamp: timestamp, registeredAt: current.registeredAt)
            else { return false }
            try db.run(
                "UPDATE devices SET invalidated_at = $3, invalid_reason = $4 WHERE token = $1 AND topic = $2",
                [.text(token.hex), .text(topic), .integer(timestamp.storeMillis), .text(reason.rawValue)])
            try PostgresWebhookRepository.record(
                [WebhookEvents.deviceInvalidated(current, reason: reason, timestamp: timestamp)], PostgresSession(connection: db))
            return true
        }
    }
}
