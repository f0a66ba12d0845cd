import Foundation
public import PushStore
import SQLiteDriver

/// One SQLite database file and the one connection every SQLite repository shares.
///
/// The actor owns the connection, so any number of tasks may use the repositories over it: each
/// repository hands its SQL to `perform` or `write`, which run it on the actor, one call at a time. Opening
/// migrates the schema (`SQLiteSchema`) and puts outbox rows a crash left in flight back in the queue.
public actor SQLiteDatabase: PushDatabase {
    let connection: SQLiteConnection
    /// How many in-flight outbox rows were put back to queued when the database opened.
    public nonisolated let recoveredAtOpen: Int
    /// Writes refused for space (`PushStoreError.storageFull`), which `/healthz` and the metrics report.
    public nonisolated let writeHealth: StoreWriteHealth? = StoreWriteHealth()
    /// The target lists of pushes claimed lately (`SQLiteTargetCache`).
    nonisolated let targetCache = SQLiteTargetCache()
    /// Writes waiting for the next group commit (`writeGrouped`).
    var groupedWrites = WaitingGroup<GroupedWrite>()
    /// Group commits run again write by write under savepoints, because a write threw in the first run.
    var groupReplays = 0
    /// Reads waiting for the next read group (`readGrouped`), each answering its caller once run.
    var groupedReads = WaitingGroup<(SQLiteConnection) -> () -> Void>()

    /// Group commits so far (`writeGrouped`): fewer than grouped writes when they shared transactions.
    var groupCommits: Int { groupedWrites.groupsTaken }
    /// Read groups so far (`readGrouped`).
    var readGroups: Int { groupedReads.groupsTaken }

    /// Opens (creating if needed) the database at `path` (":memory:" for a private one), migrates it and,
    /// unless `recoverInFlight` is false, puts rows left in flight by a crash back in the queue.
    public init(path: String, recoverInFlight: Bool = true) throws {
        try self.init(path: path, migrations: SQLiteSchema.migrations, recoverInFlight: recoverInFlight)
    }

    /// Opens the database at `path` migrated by `migrations` (tests pass later steps than this build's).
    init(path: String, migrations: [SchemaMigration], recoverInFlight: Bool) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.migrate(migrations.map(\.step))
        self.recoveredAtOpen = recoverInFlight ? try SQLiteOutboxRepository.requeueInFlight(connection) : 0
        if recoverInFlight {
            try SQLiteIdempotencyRepository.dropUnanswered(SQLiteSession(connection: connection))
            try SQLiteWebhookRepository.requeueInFlight(SQLiteSession(connection: connection))
        }
        self.connection = connection
    }

    /// Throws unless the database answers a query (the schema version is read).
    public func ping() throws {
        _ = try connection.userVersion
    }

    /// `PRAGMA integrity_check`: "ok" when the database is sound.
    public func integrityCheck() throws -> String {
        try connection.integrityCheck()
    }

    /// The schema version (`PRAGMA user_version`).
    public func schemaVersion() throws -> Int {
        try connection.userVersion
    }

    /// Rows in one of the tables (for tests and diagnostics).
    func rowCount(_ table: String) throws -> Int {
        precondition(["users", "devices", "outbox", "drops", "mate_requests"].contains(table))
        return try connection.query("SELECT count(*) FROM \(table)") { $0.int(at: 0) }.first ?? 0
    }

    /// Runs `body` on the connection with no transaction of its own: for reads, and for writes of one
    /// statement (atomic by itself) or whose steps need not be (nothing else runs on the actor meanwhile).
    func perform<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws -> T {
        do {
            return try body(connection)
        } catch {
            throw storeError(error)
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: all of its writes or, if it throws, none.
    func write<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws -> T {
        do {
            return try connection.transaction { try body(connection) }
        } catch {
            throw storeError(error)
        }
    }

    /// `error` as the repositories report it: a write refused for space (`SQLiteError.isStorageFull`) is
    /// `PushStoreError.storageFull` (and counted in `writeHealth`); anything else is passed on as it is.
    nonisolated func storeError(_ error: any Error) -> any Error {
        guard let sqlite = error as? SQLiteError, sqlite.isStorageFull else { return error }
        writeHealth?.recordStorageFull()
        return PushStoreError.storageFull(sqlite.description)
    }
}
