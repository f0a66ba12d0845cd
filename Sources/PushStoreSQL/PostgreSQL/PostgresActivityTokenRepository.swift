public import APNSCore
public import Foundation
import PostgresDriver
public import PushStore

/// `ActivityTokenRepository` on a `PostgresDatabase`: the `activity_tokens` table.
public struct PostgresActivityTokenRepository: ActivityTokenRepository {
    /// The database holding the table.
    public let database: PostgresDatabase
    /// The repository over `database`.
    public init(database: PostgresDatabase) { self.database = database }

    private static let select = ActivityTokenRecord.selectSQL

    private static func record(_ row: PostgresRow) -> ActivityTokenRecord {
        ActivityTokenRecord(row: row)
    }

    /// See `ActivityTokenRepository.register`.
    public func register(_ record: ActivityTokenRecord) async throws {
        try record.validate()
        try await database.withConnection { db in
            _ = try db.run(
                """
                INSERT INTO activity_tokens (token, topic, user_id, environment, kind, attributes_type, activity_id,
                    registered_at, retired_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)
                ON CONFLICT (token, topic) DO UPDATE SET user_id = excluded.user_id, environment = excluded.environment,
                    kind = excluded.kind, attributes_type = excluded.attributes_type, activity_id = excluded.activity_id,
                    registered_at = excluded.registered_at, retired_at = NULL
                """,
                [
                    .text(record.token.hex), .text(record.topic), .text(record.userID), .text(record.environment.name),
                    .text(record.kind.name), record.attributesType.map(PostgresValue.text) ?? .null,
                    record.activityID.map(PostgresValue.text) ?? .null, .integer(record.registeredAt.storeMillis),
                ])
        }
    }

    /// See `ActivityTokenRepository.pushToStartTokens`.
    public func pushToStartTokens(userID: String, attributesType: String?, now: Date) async throws -> [ActivityTokenRecord] {
        try await database.withConnection { db in
            try db.query(
                """
                \(Self.select) WHERE user_id = $1 AND kind = 'push_to_start' AND ($2::text IS NULL OR attributes_type = $2::text)
                    AND (retired_at IS NULL OR retired_at > $3::bigint) ORDER BY registered_at, token
                """, [.text(userID), attributesType.map(PostgresValue.text) ?? .null, .integer(now.storeMillis)]
            ).map(Self.record)
        }
    }

    /// See `ActivityTokenRepository.updateTokens`.
    public func updateTokens(activityID: String, now: Date) async throws -> [ActivityTokenRecord] {
        try await database.withConnection { db in
            try db.query(
                """
                \(Self.select) WHERE activity_id = $1 AND kind = 'live_activity'
                    AND (retired_at IS NULL OR retired_at > $2::bigint) ORDER BY registered_at, token
                """, [.text(activityID), .integer(now.storeMillis)]
            ).map(Self.record)
        }
    }

    /// See `ActivityTokenRepository.retire`.
    public func retire(activityID: String, at date: Date) async throws -> Int {
        try await database.withConnection { db in
            try db.run(
                "UPDATE activity_tokens SET retired_at = $2 WHERE activity_id = $1 AND kind = 'live_activity'",
                [.text(activityID), .integer(date.storeMillis)])
        }
    }

    /// See `ActivityTokenRepository.remove(token:)`.
    public func remove(token: DeviceToken) async throws -> Int {
        try await database.withConnection { try $0.run("DELETE FROM activity_tokens WHERE token = $1", [.text(token.hex)]) }
    }

    /// See `ActivityTokenRepository.tokens`.
    public func tokens(userID: String) async throws -> [ActivityTokenRecord] {
        try await database.withConnection { db in
            try db.query("\(Self.select) WHERE user_id = $1 ORDER BY registered_at, token", [.text(userID)]).map(Self.record)
        }
    }

    /// The first key of the advisory locks that make budget takes of one activity wait for each other
    /// (the second is the activity id's hash; the two-key space is apart from the migrations' lock).
    static let budgetLockClass: Int32 = 0x4C41_4232

    /// See `ActivityTokenRepository.takePriorityBudget`: instances take one activity's budget one at a time
    /// (a transaction-scoped advisory lock on the activity id), so the count each sees is final.
    public func takePriorityBudget(activityID: String, limit: Int, window: Duration, now: Date) async throws -> Bool {
        guard limit > 0 else { return false }
        let start = now.storeMillis - Int64((window / .milliseconds(1)).rounded())
        return try await database.transaction { db in
            _ = try db.query("SELECT pg_advisory_xact_lock(\(Self.budgetLockClass), hashtext($1))", [.text(activityID)])
            return try db.run(
                """
                INSERT INTO activity_budget (activity_id, sent_at) SELECT $1, $2
                WHERE (SELECT count(*) FROM activity_budget WHERE activity_id = $1 AND sent_at > $3) < $4
                """, [.text(activityID), .integer(now.storeMillis), .integer(start), .integer(Int64(limit))]) == 1
        }
    }

    /// See `ActivityTokenRepository.purgeRetired`.
    public func purgeRetired(olderThan date: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await database.withConnection { db in
            try db.run(
                """
                DELETE FROM activity_tokens WHERE (token, topic) IN (SELECT token, topic FROM activity_tokens
                    WHERE retired_at IS NOT NULL AND retired_at < $1 ORDER BY retired_at LIMIT $2)
                """, [.integer(date.storeMillis), .integer(Int64(limit))])
        }
    }

    /// See `ActivityTokenRepository.purgeBudget`.
    public func purgeBudget(olderThan date: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await database.withConnection { db in
            try db.run(
                """
                DELETE FROM activity_budget WHERE seq IN (SELECT seq FROM activity_budget
                    WHERE sent_at < $1 ORDER BY sent_at LIMIT $2)
                """, [.integer(date.storeMillis), .integer(Int64(limit))])
        }
    }
}
