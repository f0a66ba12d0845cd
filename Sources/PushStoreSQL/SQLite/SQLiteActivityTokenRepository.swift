public import APNSCore
public import Foundation
public import PushStore
import SQLiteDriver

/// `ActivityTokenRepository` on a `SQLiteDatabase`: the `activity_tokens` table.
public struct SQLiteActivityTokenRepository: ActivityTokenRepository {
    /// The database holding the table.
    public let database: SQLiteDatabase
    /// The repository over `database`.
    public init(database: SQLiteDatabase) { self.database = database }

    private static let select = ActivityTokenRecord.selectSQL

    private static func record(_ row: SQLiteStatement) -> ActivityTokenRecord {
        ActivityTokenRecord(row: row)
    }

    /// See `ActivityTokenRepository.register`.
    public func register(_ record: ActivityTokenRecord) async throws {
        try record.validate()
        try await database.perform { db in
            _ = try db.run(
                """
                INSERT INTO activity_tokens (token, topic, user_id, environment, kind, attributes_type, activity_id,
                    registered_at, retired_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULL)
                ON CONFLICT (token, topic) DO UPDATE SET user_id = excluded.user_id, environment = excluded.environment,
                    kind = excluded.kind, attributes_type = excluded.attributes_type, activity_id = excluded.activity_id,
                    registered_at = excluded.registered_at, retired_at = NULL
                """,
                [
                    .text(record.token.hex), .text(record.topic), .text(record.userID), .text(record.environment.name),
                    .text(record.kind.name), record.attributesType.map(SQLiteValue.text) ?? .null,
                    record.activityID.map(SQLiteValue.text) ?? .null, .integer(record.registeredAt.storeMillis),
                ])
        }
    }

    /// See `ActivityTokenRepository.pushToStartTokens`.
    public func pushToStartTokens(userID: String, attributesType: String?, now: Date) async throws -> [ActivityTokenRecord] {
        try await database.perform { db in
            try db.query(
                """
                \(Self.select) WHERE user_id = ?1 AND kind = 'push_to_start' AND (?2 IS NULL OR attributes_type = ?2)
                    AND (retired_at IS NULL OR retired_at > ?3) ORDER BY registered_at, token
                """, [.text(userID), attributesType.map(SQLiteValue.text) ?? .null, .integer(now.storeMillis)],
                row: Self.record)
        }
    }

    /// See `ActivityTokenRepository.updateTokens`.
    public func updateTokens(activityID: String, now: Date) async throws -> [ActivityTokenRecord] {
        try await database.perform { db in
            try db.query(
                """
                \(Self.select) WHERE activity_id = ?1 AND kind = 'live_activity'
                    AND (retired_at IS NULL OR retired_at > ?2) ORDER BY registered_at, token
                """, [.text(activityID), .integer(now.storeMillis)], row: Self.record)
        }
    }

    /// See `ActivityTokenRepository.remove(token:)`.
    public func remove(token: DeviceToken) async throws -> Int {
        try await database.perform { try $0.run("DELETE FROM activity_tokens WHERE token = ?1", [.text(token.hex)]) }
    }

    /// See `ActivityTokenRepository.retire`.
    public func retire(activityID: String, at date: Date) async throws -> Int {
        try await database.perform { db in
            try db.run(
                "UPDATE activity_tokens SET retired_at = ?2 WHERE activity_id = ?1 AND kind = 'live_activity'",
                [.text(activityID), .integer(date.storeMillis)])
        }
    }

    /// See `ActivityTokenRepository.tokens`.
    public func tokens(userID: String) async throws -> [ActivityTokenRecord] {
        try await database.perform { db in
            try db.query("\(Self.select) WHERE user_id = ?1 ORDER BY registered_at, token", [.text(userID)], row: Self.record)
        }
    }

    /// See `ActivityTokenRepository.takePriorityBudget`: one statement in a `BEGIN IMMEDIATE` transaction,
    /// so the count and the insert see no other writer in between.
    public func takePriorityBudget(activityID: String, limit: Int, window: Duration, now: Date) async throws -> Bool {
        guard limit > 0 else { return false }
        let start = now.storeMillis - Int64((window / .milliseconds(1)).rounded())
        return try await database.write { db in
            try db.run(
                """
                INSERT INTO activity_budget (activity_id, sent_at) SELECT ?1, ?2
                WHERE (SELECT count(*) FROM activity_budget WHERE activity_id = ?1 AND sent_at > ?3) < ?4
                """, [.text(activityID), .integer(now.storeMillis), .integer(start), .integer(Int64(limit))]) == 1
        }
    }

    /// See `ActivityTokenRepository.purgeRetired`.
    public func purgeRetired(olderThan date: Date, limit: Int) async throws -> Int {
        try await database.write { db in
            try db.run(
                """
                DELETE FROM activity_tokens WHERE rowid IN (SELECT rowid FROM activity_tokens
                    WHERE retired_at IS NOT NULL AND retired_at < ?1 ORDER BY retired_at LIMIT ?2)
                """, [.integer(date.storeMillis), .integer(Int64(max(0, limit)))])
        }
    }

    /// See `ActivityTokenRepository.purgeBudget`.
    public func purgeBudget(olderThan date: Date, limit: Int) async throws -> Int {
        try await database.write { db in
            try db.run(
                """
                DELETE FROM activity_budget WHERE rowid IN (SELECT rowid FROM activity_budget
                    WHERE sent_at < ?1 ORDER BY sent_at LIMIT ?2)
                """, [.integer(date.storeMillis), .integer(Int64(max(0, limit)))])
        }
    }
}
