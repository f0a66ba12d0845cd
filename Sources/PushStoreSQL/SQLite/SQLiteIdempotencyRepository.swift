public import Foundation
public import PushStore
import SQLiteDriver

/// `IdempotencyRepository` on a `SQLiteDatabase`: the `idempotency_keys` table. Claims left without an
/// answer by a crash are dropped when the database opens (`SQLiteDatabase`), so a retry runs again.
public struct SQLiteIdempotencyRepository: IdempotencyRepository {
    /// The database holding the table.
    public let database: SQLiteDatabase
    /// The repository over `database`.
    public init(database: SQLiteDatabase) { self.database = database }

    /// See `IdempotencyRepository.begin`.
    public func begin(
        key: String, scope: String, fingerprint: [UInt8], now: Date,
        ttl: Duration
    ) async throws -> IdempotencyClaim {
        let since = now.addingTimeInterval(-(ttl / .seconds(1))).storeMillis
        return try await database.write { db in
            let found = try db.query(
                """
                SELECT fingerprint, status, body, created_at FROM idempotency_keys WHERE scope = ?1 AND key = ?2
                """, [.text(scope), .text(key)]
            ) { row in
                (fingerprint: row.blob(at: 0), status: row.optionalInt(at: 1), body: row.blob(at: 2), created: row.int64(at: 3))
            }.first
            if let found, found.created > since {
                guard found.fingerprint == fingerprint else { return .mismatch }
                guard let status = found.status else { return .inProgress }
                return .replay(IdempotentAnswer(status: status, body: found.body))
            }
            try db.run(
                """
                INSERT INTO idempotency_keys (scope, key, fingerprint, status, body, created_at)
                VALUES (?1, ?2, ?3, NULL, X'', ?4)
                ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = NULL,
                    body = X'', created_at = excluded.created_at
                """, [.text(scope), .text(key), .blob(fingerprint), .integer(now.storeMillis)])
            return .proceed
        }
    }

    /// See `IdempotencyRepository.finish`.
    public func finish(key: String, scope: String, answer: IdempotentAnswer) async throws {
        _ = try await database.perform { db in
            try db.run(
                "UPDATE idempotency_keys SET status = ?3, body = ?4 WHERE scope = ?1 AND key = ?2",
                [.text(scope), .text(key), .integer(Int64(answer.status)), .blob(answer.body)])
        }
    }

    /// See `IdempotencyRepository.abandon`.
    public func abandon(key: String, scope: String) async throws {
        _ = try await database.perform { db in
            try db.run(
                "DELETE FROM idempotency_keys WHERE scope = ?1 AND key = ?2 AND status IS NULL",
                [.text(scope), .text(key)])
        }
    }

    /// See `IdempotencyRepository.purge(olderThan:limit:)`.
    public func purge(olderThan date: Date, limit: Int) async throws -> Int {
        try await database.write { db in
            try db.run(
                """
                DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys
                    WHERE created_at < ?1 ORDER BY created_at LIMIT ?2)
                """, [.integer(date.storeMillis), .integer(Int64(max(0, limit)))])
        }
    }

    /// Drops claims that never got an answer (their process died): run when the database opens.
    static func dropUnanswered(_ db: SQLiteConnection) throws {
        let exists = try db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idempotency_keys'") { _ in true }
        guard !exists.isEmpty else { return }  // a schema from before the table (tests migrate partway)
        _ = try db.run("DELETE FROM idempotency_keys WHERE status IS NULL")
    }
}
