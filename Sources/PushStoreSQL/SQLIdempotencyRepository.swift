import Foundation
import PushStore

/// `IdempotencyRepository` on either SQL database: the `idempotency_keys` table.
///
/// A claim left without an answer because its process died must not hold its key forever. SQLite drops
/// such claims when it opens (`SQLiteDatabase`; one process at a time uses it), so its claims need no
/// lease. On PostgreSQL other instances may be running those requests, so nothing is dropped at open;
/// instead a claim still unanswered after `unansweredClaimLease` counts as abandoned, and a retry runs again.
struct SQLIdempotencyRepository<Database: SQLDatabase>: IdempotencyRepository {
    /// The database holding the table.
    let database: Database
    /// How long an unanswered claim holds off repeats (`inProgress`) before a repeat may run again; nil
    /// for as long as it is kept (SQLite).
    let unansweredClaimLease: Duration?

    /// How many times `begin` starts over when the key's row vanished under it before it gives up with
    /// `inProgress` (another instance keeps claiming and dropping the key right now: retry later).
    static var claimRounds: Int { 8 }

    /// See `IdempotencyRepository.begin`: a new key is inserted; an existing one is decided on its row,
    /// read in the same transaction (locked with `FOR UPDATE` on PostgreSQL, where SQLite's one writer
    /// needs no lock), so two instances seeing the same key at once decide it once.
    ///
    /// On PostgreSQL the row the insert ran into may be gone by the time the lock is granted (its claim was
    /// abandoned or purged meanwhile), and a claim made since then is not in that statement's snapshot: the
    /// round then starts over with the insert, which sees (or waits for) such a claim. Taking the row over
    /// is only ever done on the locked row itself, never by an upsert that could land on someone else's claim.
    ///
    /// The claim's time, and the time its expiry and lease are measured to, are the database's on
    /// PostgreSQL (`SQLDialect.now`, the transaction's start), so instances whose clocks differ agree on when
    /// a key expires; SQLite's are `now`.
    func begin(key: String, scope: String, fingerprint: [UInt8], now: Date, ttl: Duration) async throws -> IdempotencyClaim {
        let ttlMillis = Int64((ttl / .milliseconds(1)).rounded())
        let leaseMillis = unansweredClaimLease.map { Int64(($0 / .milliseconds(1)).rounded()) }
        let nowValue = database.now(now)
        return try await database.inTransaction { db in
            let nowSQL = db.dialect.now("?5")
            for _ in 0..<Self.claimRounds {
                let inserted = try db.run(
                    """
                    INSERT INTO idempotency_keys (scope, key, fingerprint, status, body, created_at)
                    VALUES (?1, ?2, ?3, NULL, ?4, \(nowSQL)) ON CONFLICT (scope, key) DO NOTHING
                    """, [.text(scope), .text(key), .bytes(fingerprint), .bytes([]), nowValue])
                if inserted == 1 {
                    // The claim is a lock, not an answer: it need not wait for a synchronous standby (the
                    // request's own writes and its answer, later in the WAL, do). With the standby gone, a
                    // request then gets as far as its own writes, whose commit says whether they are stored
                    // or unknown (503). Sent with the commit.
                    db.commitWaitsForStandby(false)
                    return .proceed
                }
                let found = try db.query(
                    """
                    SELECT fingerprint, status, body, created_at, \(db.dialect.now("?3")) FROM idempotency_keys
                    WHERE scope = ?1 AND key = ?2\(db.dialect.forUpdate)
                    """, [.text(scope), .text(key), nowValue]
                ) { row in
                    (
                        fingerprint: row.bytes(at: 0), status: row.optionalInt64(at: 1).map(Int.init), body: row.bytes(at: 2),
                        created: row.int64(at: 3), now: row.int64(at: 4)
                    )
                }.first
                guard let found else { continue }  // gone meanwhile: claim it afresh
                let since = found.now - ttlMillis
                let abandonedBefore = leaseMillis.map { found.now - $0 } ?? .min
                if found.created > since && (found.status != nil || found.created > abandonedBefore) {
                    guard found.fingerprint == fingerprint else { return .mismatch }
                    guard let status = found.status else { return .inProgress }
                    // A replayed answer is given once the standby has it too (this commit waits for it).
                    db.commitWaitsForStandby(true)
                    return .replay(IdempotentAnswer(status: status, body: found.body))
                }
                // Expired, or a claim left unanswered past its lease: take over the row this holds locked.
                try db.run(
                    """
                    UPDATE idempotency_keys SET fingerprint = ?3, status = NULL, body = ?4, created_at = \(nowSQL)
                    WHERE scope = ?1 AND key = ?2
                    """, [.text(scope), .text(key), .bytes(fingerprint), .bytes([]), nowValue])
                db.commitWaitsForStandby(false)
                return .proceed
            }
            return .inProgress
        }
    }

    /// See `IdempotencyRepository.finish`.
    func finish(key: String, scope: String, answer: IdempotentAnswer) async throws {
        try await database.run(
            "UPDATE idempotency_keys SET status = ?3, body = ?4 WHERE scope = ?1 AND key = ?2",
            [.text(scope), .text(key), .integer(answer.status), .bytes(answer.body)])
    }

    /// See `IdempotencyRepository.abandon`.
    func abandon(key: String, scope: String) async throws {
        try await database.run(
            "DELETE FROM idempotency_keys WHERE scope = ?1 AND key = ?2 AND status IS NULL", [.text(scope), .text(key)])
    }

    /// See `IdempotencyRepository.purge(olderThan:limit:)`.
    func purge(olderThan date: Date, limit: Int) async throws -> Int {
        try await database.purge("idempotency_keys", key: "scope", "key", olderThan: date, by: "created_at", limit: limit)
    }
}

/// The Idempotency-Key records of a SQLite database.
typealias SQLiteIdempotencyRepository = SQLIdempotencyRepository<SQLiteDatabase>
/// The Idempotency-Key records of a PostgreSQL database.
typealias PostgresIdempotencyRepository = SQLIdempotencyRepository<PostgresDatabase>

extension SQLIdempotencyRepository where Database == SQLiteDatabase {
    /// The repository over `database`, whose claims need no lease: those a crash left unanswered are
    /// dropped when the database opens (`dropUnanswered`).
    init(database: SQLiteDatabase) { self.init(database: database, unansweredClaimLease: nil) }

    /// Drops claims that never got an answer (their process died): run when the database opens.
    static func dropUnanswered(_ db: SQLiteSession) throws {
        let exists = try db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idempotency_keys'", []) { _ in true }
        guard !exists.isEmpty else { return }  // a schema from before the table (tests migrate partway)
        try db.run("DELETE FROM idempotency_keys WHERE status IS NULL", [])
    }
}

extension SQLIdempotencyRepository where Database == PostgresDatabase {
    /// The repository over `database`, where an unanswered claim counts as abandoned after
    /// `unansweredClaimLease`.
    init(database: PostgresDatabase, unansweredClaimLease: Duration = .seconds(300)) {
        self.init(database: database, unansweredClaimLease: Optional(unansweredClaimLease))
    }
}
