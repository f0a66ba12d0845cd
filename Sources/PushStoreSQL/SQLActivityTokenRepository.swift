import APNSCore
import Foundation
import PushStore

/// `ActivityTokenRepository` on either SQL database: the `activity_tokens` and `activity_budget` tables.
struct SQLActivityTokenRepository<Database: SQLDatabase>: ActivityTokenRepository {
    /// The database holding the tables.
    let database: Database

    /// See `ActivityTokenRepository.register`.
    func register(_ record: ActivityTokenRecord) async throws {
        try record.validate()
        try await database.run(
            """
            INSERT INTO activity_tokens (token, topic, user_id, environment, kind, attributes_type, activity_id,
                registered_at, retired_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULL)
            ON CONFLICT (token, topic) DO UPDATE SET user_id = excluded.user_id, environment = excluded.environment,
                kind = excluded.kind, attributes_type = excluded.attributes_type, activity_id = excluded.activity_id,
                registered_at = excluded.registered_at, retired_at = NULL
            """,
            [
                .text(record.token.hex), .text(record.topic), .text(record.userID), .text(record.environment.name),
                .text(record.kind.name), .text(record.attributesType), .text(record.activityID),
                .date(record.registeredAt),
            ])
    }

    /// See `ActivityTokenRepository.pushToStartTokens`.
    func pushToStartTokens(userID: String, attributesType: String?, now: Date) async throws -> [ActivityTokenRecord] {
        try await database.query(
            """
            \(ActivityTokenRecord.selectSQL) WHERE user_id = ?1 AND kind = 'push_to_start' AND (?2::text IS NULL OR attributes_type = ?2::text)
                AND (retired_at IS NULL OR retired_at > ?3::bigint) ORDER BY registered_at, token
            """, [.text(userID), .text(attributesType), .date(now)], row: ActivityTokenRecord.init(row:))
    }

    /// See `ActivityTokenRepository.updateTokens`.
    func updateTokens(activityID: String, now: Date) async throws -> [ActivityTokenRecord] {
        try await database.query(
            """
            \(ActivityTokenRecord.selectSQL) WHERE activity_id = ?1 AND kind = 'live_activity'
                AND (retired_at IS NULL OR retired_at > ?2::bigint) ORDER BY registered_at, token
            """, [.text(activityID), .date(now)], row: ActivityTokenRecord.init(row:))
    }

    /// See `ActivityTokenRepository.remove(token:)`.
    func remove(token: DeviceToken) async throws -> Int {
        try await database.onConnection { try $0.run("DELETE FROM activity_tokens WHERE token = ?1", [.text(token.hex)]) }
    }

    /// See `ActivityTokenRepository.retire`.
    func retire(activityID: String, at date: Date) async throws -> Int {
        try await database.onConnection { db in
            try db.run(
                "UPDATE activity_tokens SET retired_at = ?2 WHERE activity_id = ?1 AND kind = 'live_activity'",
                [.text(activityID), .date(date)])
        }
    }

    /// See `ActivityTokenRepository.tokens`.
    func tokens(userID: String) async throws -> [ActivityTokenRecord] {
        try await database.query(
            "\(ActivityTokenRecord.selectSQL) WHERE user_id = ?1 ORDER BY registered_at, token", [.text(userID)],
            row: ActivityTokenRecord.init(row:))
    }

    /// The first key of the advisory locks that make budget takes of one activity wait for each other on
    /// PostgreSQL (`SQLDialect.keyLock`).
    static var budgetLockClass: Int32 { 0x4C41_4232 }

    /// See `ActivityTokenRepository.takePriorityBudget`: the count and the insert in one transaction that
    /// no other take of the activity runs beside (SQLite's one writer; on PostgreSQL, where instances take
    /// at once, an advisory lock on the activity id), so the count each sees is final.
    func takePriorityBudget(activityID: String, limit: Int, window: Duration, now: Date) async throws -> Bool {
        guard limit > 0 else { return false }
        let start = now.storeMillis - Int64((window / .milliseconds(1)).rounded())
        return try await database.inTransaction { db in
            if let lock = db.dialect.keyLock(Self.budgetLockClass) {
                _ = try db.query(lock, [.text(activityID)]) { _ in () }
            }
            return try db.run(
                """
                INSERT INTO activity_budget (activity_id, sent_at) SELECT ?1, ?2
                WHERE (SELECT count(*) FROM activity_budget WHERE activity_id = ?1 AND sent_at > ?3) < ?4
                """, [.text(activityID), .date(now), .integer(start), .integer(limit)]) == 1
        }
    }

    /// See `ActivityTokenRepository.purgeRetired`.
    func purgeRetired(olderThan date: Date, limit: Int) async throws -> Int {
        try await database.purge(
            "activity_tokens", key: "token", "topic", olderThan: date, by: "retired_at", where: "retired_at IS NOT NULL",
            limit: limit)
    }

    /// See `ActivityTokenRepository.purgeBudget`.
    func purgeBudget(olderThan date: Date, limit: Int) async throws -> Int {
        try await database.purge("activity_budget", key: "seq", olderThan: date, by: "sent_at", limit: limit)
    }
}

/// The Live Activity tokens of a SQLite database.
typealias SQLiteActivityTokenRepository = SQLActivityTokenRepository<SQLiteDatabase>
/// The Live Activity tokens of a PostgreSQL database.
typealias PostgresActivityTokenRepository = SQLActivityTokenRepository<PostgresDatabase>
