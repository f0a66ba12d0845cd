import Foundation

/// The SQLite-backed store: one actor owns the one connection, so any number of tasks may call it.
///
/// Its operations are grouped by table in `PushStore+Users.swift`, `+Devices`, `+Outbox`, `+Drops` and
/// `+MateRequests`; the `SQLite…Repository` structs expose them behind the repository protocols.
public actor PushStore {
    let connection: SQLiteConnection
    /// The retry schedule used by `complete` for `.retry` outcomes.
    public nonisolated let retryPolicy: OutboxRetryPolicy
    /// How many in-flight outbox rows were put back to queued when the store opened.
    public nonisolated let recoveredAtOpen: Int

    /// Opens (creating if needed) the database at `path` (":memory:" for a private one), migrates it and,
    /// unless `recoverInFlight` is false, puts rows left in flight by a crash back in the queue.
    public init(path: String, retryPolicy: OutboxRetryPolicy = .default, recoverInFlight: Bool = true) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.migrate(PushStoreSchema.migrations)
        self.recoveredAtOpen = recoverInFlight ? try Self.requeueInFlight(connection) : 0
        self.connection = connection
        self.retryPolicy = retryPolicy
    }

    /// `PRAGMA integrity_check`: "ok" when the database is sound.
    public func integrityCheck() throws -> String {
        try connection.integrityCheck()
    }

    /// The schema version (`PRAGMA user_version`).
    public func schemaVersion() throws -> Int {
        try connection.userVersion
    }

    /// Rows in one of the store's tables (for tests and diagnostics).
    func rowCount(_ table: String) throws -> Int {
        precondition(["users", "devices", "outbox", "drops", "mate_requests"].contains(table))
        return try connection.query("SELECT count(*) FROM \(table)") { $0.int(at: 0) }.first ?? 0
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction on the store's connection.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.transaction { try body(connection) }
    }
}
