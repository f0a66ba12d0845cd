public import APNSCore
public import Foundation
public import PushStore
import SQLiteDriver

/// `DeviceRepository` on a `SQLiteDatabase`: the `devices` table.
public struct SQLiteDeviceRepository: DeviceRepository {
    /// The database holding the table.
    public let database: SQLiteDatabase
    /// The repository over `database`.
    public init(database: SQLiteDatabase) { self.database = database }

    /// The columns of the table (`DeviceColumn`, shared by both SQL backends).
    typealias Column = DeviceColumn

    private static let columns = Column.selectList

    private static func record(_ row: SQLiteStatement) -> DeviceRecord {
        DeviceRecord(row: row)
    }

    /// See `DeviceRepository.register`.
    public func register(
        token: DeviceToken, topic: String, userID: String, environment: APNSEnvironment,
        now: Date
    ) async throws -> DeviceRecord {
        try StoreValidation.required(topic, field: "topic")
        try StoreValidation.userID(userID)
        try StoreValidation.environment(environment.name)
        return try await database.perform { db in
            try db.run(
                """
                INSERT INTO devices (token, topic, user_id, environment, registered_at, last_seen)
                VALUES (?1, ?2, ?3, ?4, ?5, ?5)
                ON CONFLICT (token, topic) DO UPDATE SET user_id = excluded.user_id,
                    environment = excluded.environment, registered_at = excluded.registered_at,
                    last_seen = excluded.last_seen, invalidated_at = NULL, invalid_reason = NULL
                """,
                [
                    .text(token.hex), .text(topic), .text(userID), .text(environment.name),
                    .integer(now.storeMillis),
                ])
            guard let device = try Self.device(token: token, topic: topic, db) else {
                throw PushStoreError.notFound("device \(token) \(topic)")
            }
            return device
        }
    }

    /// See `DeviceRepository.remove(token:)`.
    public func remove(token: DeviceToken) async throws -> Int {
        try await database.perform { try $0.run("DELETE FROM devices WHERE token = ?1", [.text(token.hex)]) }
    }

    /// See `DeviceRepository.devices(forUser:includeInvalidated:)`.
    public func devices(forUser userID: String, includeInvalidated: Bool) async throws -> [DeviceRecord] {
        try await database.perform { try Self.devices(forUser: userID, includeInvalidated: includeInvalidated, $0) }
    }

    /// See `DeviceRepository.devices(forUsers:includeInvalidated:)`: one read for all of them, grouped with
    /// the reads around it (`SQLiteDatabase.readGrouped`).
    public func devices(forUsers userIDs: [String], includeInvalidated: Bool) async throws -> [String: [DeviceRecord]] {
        try await database.readGrouped { db in
            var found: [String: [DeviceRecord]] = [:]
            for user in Set(userIDs) { found[user] = try Self.devices(forUser: user, includeInvalidated: includeInvalidated, db) }
            return found
        }
    }

    private static func devices(forUser userID: String, includeInvalidated: Bool, _ db: SQLiteConnection) throws -> [DeviceRecord] {
        try db.query(includeInvalidated ? byUserSQL : activeByUserSQL, [.text(userID)], row: record)
    }

    /// A user's devices, and only their active ones; texts built once (the statement cache is keyed by them).
    private static let byUserSQL = "SELECT \(columns) FROM devices WHERE user_id = ?1 ORDER BY registered_at, token, topic"
    private static let activeByUserSQL =
        "SELECT \(columns) FROM devices WHERE user_id = ?1 AND invalidated_at IS NULL ORDER BY registered_at, token, topic"

    /// See `DeviceRepository.device(token:topic:)`.
    public func device(token: DeviceToken, topic: String) async throws -> DeviceRecord? {
        try await database.perform { try Self.device(token: token, topic: topic, $0) }
    }

    /// See `DeviceRepository.devices(tokens:topic:)`: statements of up to 500 tokens each, all in one
    /// turn of the database actor.
    public func devices(tokens: [DeviceToken], topic: String) async throws -> [DeviceToken: DeviceRecord] {
        try await database.perform { db in
            var found: [DeviceToken: DeviceRecord] = [:]
            var start = tokens.startIndex
            while start < tokens.endIndex {
                let chunk = tokens[start..<min(start + 500, tokens.endIndex)]
                let placeholders = (0..<chunk.count).map { "?\($0 + 2)" }.joined(separator: ", ")
                let rows = try db.query(
                    "SELECT \(Self.columns) FROM devices WHERE topic = ?1 AND token IN (\(placeholders))",
                    [.text(topic)] + chunk.map { .text($0.hex) }, row: Self.record)
                for device in rows { found[device.token] = device }
                start = chunk.endIndex
            }
            return found
        }
    }

    /// See `DeviceRepository.invalidate`: Apple's rule (`DeviceInvalidationRule`) on an active registration.
    public func invalidate(
        token: DeviceToken, topic: String, reason: APNSRejectionReason,
        at timestamp: Date
    ) async throws -> Bool {
        try await database.write { db in
            guard let current = try Self.device(token: token, topic: topic, db), current.isActive,
                DeviceInvalidationRule.invalidates(
                    reason: reason, timestamp: timestamp,
                    registeredAt: current.registeredAt)
            else { return false }
            try db.run(
                """
                UPDATE devices SET invalidated_at = ?3, invalid_reason = ?4 WHERE token = ?1 AND topic = ?2
                """, [.text(token.hex), .text(topic), .integer(timestamp.storeMillis), .text(reason.rawValue)])
            try SQLiteWebhookRepository.record(
                [WebhookEvents.deviceInvalidated(current, reason: reason, timestamp: timestamp)], SQLiteSession(connection: db))
            return true
        }
    }

    private static func device(token: DeviceToken, topic: String, _ db: SQLiteConnection) throws -> DeviceRecord? {
        try db.query(
            "SELECT \(columns) FROM devices WHERE token = ?1 AND topic = ?2",
            [.text(token.hex), .text(topic)], row: record
        ).first
    }
}
