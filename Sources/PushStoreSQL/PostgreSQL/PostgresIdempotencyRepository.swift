public import Foundation
import PostgresDriver
public import PushStore

/// `IdempotencyRepository` on a `PostgresDatabase`: the `idempotency_keys` table.
///
/// SQLite drops claims left without an answer when it opens (their process died). Here other instances
/// may be running those requests, so nothing is dropped at open; instead a claim still unanswered after
/// `unansweredClaimLease` counts as abandoned, and a retry runs again.
public struct PostgresIdempotencyRepository: IdempotencyRepository {
    /// The database holding the table.
    public let database: PostgresDatabase
    /// How long an unanswered claim holds off repeats (`inProgress`) before a repeat may run again.
    public let unansweredClaimLease: Duration

    /// The repository over `database`.
    public init(database: PostgresDatabase, unansweredClaimLease: Duration = .seconds(300)) {
        self.database = database
        self.unansweredClaimLease = unansweredClaimLease
    }

    /// How many times `begin` starts over when the key's row vanished under it before it gives up with
    /// `inProgress` (another instance keeps claiming and dropping the key right now: retry later).
    static let claimRounds = 8

    /// See `IdempotencyRepository.begin`: a new key is inserted; an existing one is decided on its row,
    /// locked with `FOR UPDATE`, so two instances seeing the same key at once decide it once.
    ///
    /// The row the insert ran into may be gone by the time the lock is granted (its claim was abandoned
    /// or purged meanwhile), and a claim made since then is not in that statement's snapshot: the round
    /// then starts over with the insert, which sees (or waits for) such a claim. Taking the row over is
    /// only ever done on the locked row itself, never by an upsert that could land on someone else's claim.
    public func begin(
        key: String, scope: String, fingerprint: [UInt8], now: Date,
        ttl: Duration
    ) async throws -> IdempotencyClaim {
        let since = now.addingTimeInterval(-(ttl / .seconds(1))).storeMillis
        let abandonedBefore = now.addingTimeInterval(-(unansweredClaimLease / .seconds(1))).storeMillis
        let nowMillis = now.storeMillis
        return try await database.transaction { db in
            for _ in 0..<Self.claimRounds {
                let inserted = try db.run(
                    """
                    INSERT INTO idempotency_keys (scope, key, fingerprint, status, body, created_at)
                    VALUES ($1, $2, $3, NULL, '\\x', $4) ON CONFLICT (scope, key) DO NOTHING
                    """, [.text(scope), .text(key), .bytes(fingerprint), .integer(nowMillis)])
                if inserted == 1 { return .proceed }
                let rows = try db.query(
                    """
                    SELECT fingerprint, status, body, created_at FROM idempotency_keys WHERE scope = $1 AND key = $2 FOR UPDATE
                    """, [.text(scope), .text(key)])
                guard rows.count == 1 else { continue }  // gone meanwhile: claim it afresh
                let row = rows[0]
                let created = row.int64(at: 3)
                let status = row.optionalInt(at: 1)
                if created > since && (status != nil || created > abandonedBefore) {
                    guard row.bytes(at: 0) == fingerprint else { return .mismatch }
                    guard let status else { return .inProgress }
                    return .replay(IdempotentAnswer(status: status, body: row.bytes(at: 2)))
                }
                // Expired, or a claim left unanswered past its lease: take over the row this holds locked.
                try db.run(
                    """
                    UPDATE idempotency_keys SET fingerprint = $3, status = NULL, body = '\\x', created_at = $4
                    WHERE scope = $1 AND key = $2
                    """, [.text(scope), .text(key), .bytes(fingerprint), .integer(nowMillis)])
                return .proceed
            }
            return .inProgress
        }
    }

    /// See `IdempotencyRepository.finish`.
    public func finish(key: String, scope: String, answer: IdempotentAnswer) async throws {
        _ = try await database.withConnection { db in
            try db.run(
                "UPDATE idempotency_keys SET status = $3, body = $4 WHERE scope = $1 AND key = $2",
                [.text(scope), .text(key), .integer(Int64(answer.status)), .bytes(answer.body)])
        }
    }

    /// See `IdempotencyRepository.abandon`.
    public func abandon(key: String, scope: String) async throws {
        _ = try await database.withConnection { db in
            try db.run("DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND status IS NULL", [.text(scope), .text(key)])
        }
    }

    /// See `IdempotencyRepository.purge(olderThan:limit:)`.
    public func purge(olderThan date: Date, limit: Int) async throws -> Int {
        guard limit > 0 else { return 0 }
        return try await database.withConnection { db in
            try db.run(
                """
                DELETE FROM idempotency_keys WHERE (scope, key) IN (SELECT scope, key FROM idempotency_keys
                    WHERE created_at < $1 ORDER BY created_at LIMIT $2)
                """, [.integer(date.storeMillis), .integer(Int64(limit))])
        }
    }
}
