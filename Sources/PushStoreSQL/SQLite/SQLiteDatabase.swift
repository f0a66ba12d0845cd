import Foundation
public import PushStore
import PushSync
import SQLiteDriver

/// One SQLite database file and the one connection every SQLite repository shares.
///
/// The actor owns the connection, so any number of tasks may use the repositories over it: each
/// repository hands its SQL to `perform` or `write`, which run it on the actor, one call at a time. Opening
/// migrates the schema (`SQLiteSchema`) and puts outbox rows a crash left in flight back in the queue.
///
/// The actor runs on a thread of its own (`thread`, its executor), not on Swift's concurrency pool: its
/// calls block (a commit appends to the WAL, a checkpoint syncs the files, for milliseconds at times), and
/// the pool has one thread per core for all the service's async work. The connection is confined to that
/// thread (`SQLiteConnection.confine(to:)`), so a statement run anywhere else stops the process.
public actor SQLiteDatabase: PushDatabase {
    let connection: SQLiteConnection
    /// The thread every job of the actor runs on, and so every statement on `connection`.
    nonisolated let thread: SerialThread
    /// The actor's executor: `thread`.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    /// How many in-flight outbox rows were put back to queued when the database opened.
    public nonisolated let recoveredAtOpen: Int
    /// Writes refused for space (`PushStoreError.storageFull`), which `/healthz` and the metrics report.
    public nonisolated let writeHealth: StoreWriteHealth? = StoreWriteHealth()
    /// The target lists of pushes claimed lately (`OutboxTargetCache`).
    nonisolated let targetCache = OutboxTargetCache()
    /// Writes waiting for the next group commit (`writeGrouped`), behind a lock rather than the actor: a
    /// write joins the group without a job on the actor of its own.
    nonisolated let groupedWrites = PThreadLock(WaitingGroup<GroupedWrite>())
    /// Group commits run again write by write under savepoints, because a write threw in the first run.
    var groupReplays = 0
    /// Reads waiting for the next read group (`readGrouped`), each answering its caller once run.
    var groupedReads = WaitingGroup<(SQLiteConnection) -> () -> Void>()

    /// How long the connection must change nothing before the WAL is checkpointed and its file emptied
    /// (`noteWrites`): the up to `SQLiteConnection.walLimitBytes` it otherwise keeps between autocheckpoints
    /// are given back once writes stop.
    nonisolated let idleCheckpointDelay: Duration
    /// The timer of the idle checkpoint, while changes are not checkpointed yet.
    var idleCheckpoint: Task<Void, Never>?
    /// `totalChanges` at the idle timer's last tick, and at the last idle checkpoint.
    var changesAtTick: Int64 = 0
    var changesCheckpointed: Int64 = 0
    /// Idle checkpoints run so far.
    var idleCheckpoints = 0

    /// Group commits so far (`writeGrouped`): fewer than grouped writes when they shared transactions.
    var groupCommits: Int { groupedWrites.withLock { $0.groupsTaken } }
    /// Read groups so far (`readGrouped`).
    var readGroups: Int { groupedReads.groupsTaken }

    /// Opens (creating if needed) the database at `path` (":memory:" for a private one), migrates it and,
    /// unless `recoverInFlight` is false, puts rows left in flight by a crash back in the queue.
    public init(path: String, recoverInFlight: Bool = true) throws {
        try self.init(path: path, migrations: SQLiteSchema.migrations, recoverInFlight: recoverInFlight)
    }

    /// Opens the database at `path` migrated by `migrations` (tests pass later steps than this build's),
    /// checkpointing after `idleCheckpointDelay` without changes.
    init(
        path: String, migrations: [SchemaMigration], recoverInFlight: Bool, idleCheckpointDelay: Duration = .seconds(1)
    ) throws {
        let connection = try SQLiteConnection(path: path)
        try Self.giveBackFreePages(connection)
        try connection.migrate(migrations.map(\.step))
        self.recoveredAtOpen = recoverInFlight ? try SQLiteOutboxRepository.requeueInFlight(connection) : 0
        if recoverInFlight {
            try SQLiteIdempotencyRepository.dropUnanswered(SQLiteSession(connection: connection))
            try SQLiteWebhookRepository.requeueInFlight(SQLiteSession(connection: connection))
        }
        let thread = SerialThread(name: Self.threadName)
        connection.confine(to: thread)
        self.connection = connection
        self.thread = thread
        self.idleCheckpointDelay = idleCheckpointDelay
    }

    /// The name of the actor's thread (`thread`), as `top -H`, `perf` and debuggers show it.
    static let threadName = "push-sqlite"

    /// No job of the actor is queued once it is gone (each holds it): its thread ends.
    deinit {
        thread.stop()
    }

    /// Files up to this size created before incremental auto-vacuum are rewritten in that mode when opened.
    static let vacuumAtOpenLimit = 64 * 1_024 * 1_024

    /// Puts a file created before incremental auto-vacuum (`SQLiteConnection.AutoVacuum.none`) in that mode,
    /// so that the pages retention frees are given back from then on: a `VACUUM`, which rewrites the whole
    /// file (taking about its size again on disk meanwhile, through the WAL), so only for files of at most
    /// `vacuumAtOpenLimit` (seconds at most). A larger file stays as it is, reusing its free pages without
    /// shrinking (an operator may run `VACUUM` on it with the service stopped), and so does one that could not
    /// be rewritten (no room for the copy). Returns whether it rewrote.
    @discardableResult
    static func giveBackFreePages(_ connection: SQLiteConnection, limit: Int = vacuumAtOpenLimit) throws -> Bool {
        guard try connection.autoVacuumMode() == .none else { return false }
        let (pages, _) = try connection.pageCounts()
        guard pages > 0, pages * (try connection.pageSizeInUse()) <= limit else { return false }
        try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
        do {
            try connection.execute("VACUUM")
        } catch {
            return false  // e.g. no room for the copy: the file is left as it was, and opens as before
        }
        _ = try? connection.checkpointTruncating()
        return true
    }

    /// Starts the idle checkpoint's timer if the connection changed rows since the last one: called after
    /// each call on the connection. The timer ticks every `idleCheckpointDelay`; at the first tick that
    /// finds no change since the one before, it checkpoints the WAL and empties its file.
    func noteWrites() {
        guard idleCheckpoint == nil else { return }
        let changes = connection.totalChanges
        guard changes != changesCheckpointed else { return }
        changesAtTick = changes
        let delay = idleCheckpointDelay
        idleCheckpoint = Task { [weak self] in
            while true {
                try? await Task.sleep(for: delay)
                guard let database = self else { return }
                if await database.checkpointIfIdle() { return }
            }
        }
    }

    /// The idle timer's tick: checkpoints (true) when nothing changed since the last tick and no
    /// transaction is open.
    func checkpointIfIdle() -> Bool {
        let changes = connection.totalChanges
        guard changes == changesAtTick, !connection.inTransaction else {
            changesAtTick = changes
            return false
        }
        _ = try? connection.checkpointTruncating()
        changesCheckpointed = changes
        idleCheckpoint = nil
        idleCheckpoints += 1
        return true
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
        defer { noteWrites() }
        do {
            return try body(connection)
        } catch {
            throw storeError(error)
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: all of its writes or, if it throws, none.
    func write<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws -> T {
        defer { noteWrites() }
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
