internal import CSQLite
package import PushSync

/// Owns one `sqlite3*` connection, closed in `deinit`, plus its cache of prepared statements.
///
/// Not thread-safe on purpose (opened with `SQLITE_OPEN_NOMUTEX`): exactly one owner uses it at a
/// time. In the store that owner is the `SQLiteDatabase` actor, which runs on a thread of its own and
/// confines the connection to it (`confine(to:)`): from then on every statement checks it runs there.
///
/// Durability: WAL with `synchronous=NORMAL`. A commit is appended to the WAL with `write(2)` before
/// `COMMIT` returns, so it survives the process being killed (the kernel keeps the page cache); only a
/// power loss or OS crash can lose the last few commits (never corrupt the file). The crash test
/// (SIGKILL mid-stream) proves the process-kill half. Pass `synchronous: .full` for power-loss safety.
package final class SQLiteConnection {
    /// How hard SQLite syncs on commit.
    package enum Synchronous: String {
        case normal = "NORMAL"
        case full = "FULL"
    }

    private let handle: OpaquePointer
    private var statements: [StatementKey: SQLiteStatement] = [:]
    /// The thread the connection is confined to (`confine(to:)`), if any.
    private var thread: SerialThread?
    /// The path the connection was opened with (":memory:" for a private in-memory database).
    package let path: String

    /// Process-wide SQLite settings, applied once before the first connection opens.
    private static let configured: Bool = {
        // Best effort: SQLITE_MISUSE if the library was already initialised elsewhere in the process.
        push_sqlite_disable_memstatus() == SQLITE_OK
    }()

    /// Page size for new database files: 16 KB. The outbox appends rows of a few hundred bytes and each
    /// WAL frame is written with its own system calls, so large pages mean several times fewer writes
    /// and checkpoint reads per row. Existing files keep the page size they were created with.
    package static let newDatabasePageSize = 16_384

    /// How large the WAL grows before it is checkpointed, and the size its file is cut back to afterwards:
    /// 4 MB. The file holds at most this plus the last transaction's pages at any moment of a run, where
    /// 8 MB kept it near 8 MB on disk beside the database for as long as writes went on. Smaller costs more
    /// checkpoints, each syncing the WAL and the database file: at 1 MB, B8's store cycle (a few pages a
    /// transaction) ran measurably slower side by side; at 4 MB it did not, nor did B7's CPU per notification.
    package static let walLimitBytes = 4 * 1_024 * 1_024

    package init(
        path: String, busyTimeoutMilliseconds: Int32 = 5_000, synchronous: Synchronous = .normal,
        pageSize: Int = newDatabasePageSize
    ) throws(SQLiteError) {
        _ = Self.configured
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let error = sqliteError(code, "sqlite3_open_v2", db)
            sqlite3_close_v2(db)
            throw error
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        try sqliteCheck(sqlite3_busy_timeout(db, busyTimeoutMilliseconds), "sqlite3_busy_timeout", db)
        // Only takes effect on a new, empty file, and must come before WAL mode (which fixes the page size).
        try execute("PRAGMA page_size = \(pageSize)")
        // New files can give the pages their deletes free back to the file system (`releaseFreePages`): an
        // outbox that retention purges would otherwise keep the size of its fullest moment for good. Like
        // the page size, only a new, empty file takes it; an existing file keeps its mode (`autoVacuumMode`).
        try execute("PRAGMA auto_vacuum = INCREMENTAL")
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = \(synchronous.rawValue)")
        try execute("PRAGMA foreign_keys = ON")
        // 8 MB of page cache (default 2 MB). The outbox's hot pages are its head and tail; 16 MB measured no
        // faster (B7, B8 side by side) and held 8 MB more of the service's peak RSS.
        try execute("PRAGMA cache_size = -8000")
        // Checkpoint every `walLimitBytes` of WAL, whatever the file's page size, and cut the WAL file back
        // to that size at the first commit after a checkpoint emptied it.
        let actualPageSize = max(512, try pageSizeInUse())
        try execute("PRAGMA wal_autocheckpoint = \(max(1, Self.walLimitBytes / actualPageSize))")
        try execute("PRAGMA journal_size_limit = \(Self.walLimitBytes)")
        try execute("PRAGMA temp_store = MEMORY")  // RETURNING and IN (SELECT …) scratch tables stay in memory
    }

    deinit {
        statements.removeAll()  // finalize every statement before closing
        sqlite3_close_v2(handle)
    }

    /// Confines the connection to `thread`: from now on every statement (`execute`, `statement`) and every
    /// read of its state (`inTransaction`, `totalChanges`) stops the process unless it runs there.
    package func confine(to thread: SerialThread) {
        self.thread = thread
    }

    /// Stops the process when the connection is confined to a thread and this is not it.
    @inline(__always)
    private func checkThread() {
        if let thread { thread.preconditionCurrent("an SQLite connection") }
    }

    /// Runs one or more SQL statements that take no parameters, discarding any rows.
    package func execute(_ sql: String) throws(SQLiteError) {
        checkThread()
        try sqliteCheck(sqlite3_exec(handle, sql, nil, nil, nil), "sqlite3_exec", handle)
    }

    /// Statements handed out to run (`statement(_:)`, which `run` and `query` use): what tests count.
    package private(set) var statementsRun = 0

    /// The prepared statement for `sql`, from the cache or freshly prepared; reset and unbound.
    package func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        checkThread()
        statementsRun += 1
        let key = StatementKey(sql: sql)
        if let cached = statements[key] { return cached }
        let prepared = try SQLiteStatement(db: handle, sql: sql)
        statements[key] = prepared
        return prepared
    }

    /// A statement's SQL as the cache's key, hashed by its length and its first and last `sampled` bytes
    /// only: a report's statements run to a kilobyte or more, and hashing all of it at every call (for a
    /// dictionary of a few dozen statements) cost more than the lookup needs. Equal keys are equal texts, so
    /// two statements whose samples agree only share a bucket; the comparison of a statement with itself (the
    /// same `static let` text) is one of the strings' storage, not of their bytes.
    package struct StatementKey: Hashable {
        package let sql: String
        package static let sampled = 48

        package init(sql: String) { self.sql = sql }

        package func hash(into hasher: inout Hasher) {
            let utf8 = sql.utf8
            hasher.combine(utf8.count)
            let done: Void? = utf8.withContiguousStorageIfAvailable { bytes in
                let raw = UnsafeRawBufferPointer(bytes)
                guard raw.count > 2 * Self.sampled else { return hasher.combine(bytes: raw) }
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.prefix(Self.sampled)))
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.suffix(Self.sampled)))
            }
            if done == nil { hasher.combine(sql) }
        }
    }

    /// Number of statements in the cache.
    package var cachedStatementCount: Int { statements.count }

    /// Runs `sql` with `bindings` to completion, returning the number of rows changed.
    @discardableResult
    package func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        let stmt = try statement(sql)
        defer { stmt.reset() }
        try stmt.bind(bindings)
        while try stmt.step() {}
        return changes
    }

    /// Runs a query and maps every row with `row`.
    package func query<T>(
        _ sql: String, _ bindings: [SQLiteValue] = [],
        row: (SQLiteStatement) throws -> T
    ) throws -> [T] {
        let stmt = try statement(sql)
        defer { stmt.reset() }
        try stmt.bind(bindings)
        var rows: [T] = []
        while try stmt.step() { rows.append(try row(stmt)) }
        return rows
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes64(handle)) }

    /// True while a transaction is open.
    package var inTransaction: Bool {
        checkThread()
        return sqlite3_get_autocommit(handle) == 0
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws or the commit fails.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try enclosed(begin: "BEGIN IMMEDIATE", end: "COMMIT", undo: ["ROLLBACK"], body)
    }

    /// Runs `body` under a savepoint of the open transaction: its writes stay if it returns and are undone
    /// if it throws, and the transaction goes on either way (unless SQLite itself rolled it back, which
    /// `inTransaction` then shows).
    package func savepoint<T>(_ body: () throws -> T) throws -> T {
        try enclosed(begin: "SAVEPOINT grouped", end: "RELEASE grouped", undo: ["ROLLBACK TO grouped", "RELEASE grouped"], body)
    }

    /// Runs `begin`, `body` and `end`; if `body` or `end` throws, runs the statements of `undo` (those of
    /// a transaction still open: SQLite may have ended it already) and throws what was thrown.
    private func enclosed<T>(begin: String, end: String, undo: [String], _ body: () throws -> T) throws -> T {
        try run(begin)
        do {
            let result = try body()
            try run(end)
            return result
        } catch {
            if inTransaction { for statement in undo { _ = try? run(statement) } }
            throw error
        }
    }

    /// The database's page size in bytes (`PRAGMA page_size`).
    package func pageSizeInUse() throws(SQLiteError) -> Int {
        let stmt = try statement("PRAGMA page_size")
        defer { stmt.reset() }
        return try stmt.step() ? stmt.int(at: 0) : 0
    }

    /// How the file gives free pages back (`PRAGMA auto_vacuum`).
    package enum AutoVacuum: Int, Sendable {
        /// Never: free pages are reused, the file does not shrink (files created before incremental mode).
        case none = 0
        /// At every commit.
        case full = 1
        /// When asked (`releaseFreePages`).
        case incremental = 2
    }

    /// The file's auto-vacuum mode.
    package func autoVacuumMode() throws -> AutoVacuum {
        AutoVacuum(rawValue: try query("PRAGMA auto_vacuum") { $0.int(at: 0) }.first ?? 0) ?? .none
    }

    /// Pages the file holds (`PRAGMA page_count`) and how many of them are free (`PRAGMA freelist_count`).
    package func pageCounts() throws -> (pages: Int, free: Int) {
        (
            try query("PRAGMA page_count") { $0.int(at: 0) }.first ?? 0,
            try query("PRAGMA freelist_count") { $0.int(at: 0) }.first ?? 0
        )
    }

    /// Gives every free page back to the file system (`PRAGMA incremental_vacuum`; the file shrinks at the
    /// next checkpoint): in the open transaction if there is one, else in its own. Nothing on a file not in
    /// incremental mode.
    package func releaseFreePages() throws(SQLiteError) {
        try execute("PRAGMA incremental_vacuum")
    }

    /// Copies the whole WAL into the database and cuts its file to nothing (`PRAGMA wal_checkpoint(TRUNCATE)`);
    /// false when a reader or writer kept it from finishing (nothing is lost: the WAL stays as it was).
    package func checkpointTruncating() throws -> Bool {
        try query("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int(at: 0) }.first == 0
    }

    /// Rows changed by INSERT, UPDATE and DELETE since the connection opened (`sqlite3_total_changes64`).
    package var totalChanges: Int64 {
        checkThread()
        return sqlite3_total_changes64(handle)
    }

    /// The schema version kept in `PRAGMA user_version`.
    package var userVersion: Int {
        get throws { try query("PRAGMA user_version") { $0.int(at: 0) }.first ?? 0 }
    }

    /// Applies the steps after the current `user_version`, each in its own transaction with its version bump:
    /// step *n* (its SQL; its name is for people reading the list) brings `user_version` to *n*.
    package func migrate(_ steps: [(name: String, sql: String)]) throws {
        let current = try userVersion
        guard current <= steps.count else {
            throw SQLiteError(
                function: "migrate", code: SQLITE_ERROR,
                message: "database schema version \(current) is newer than this build (\(steps.count))")
        }
        for (index, step) in steps.enumerated() where index + 1 > current {
            try transaction {
                try execute(step.sql)
                try execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }

    /// `PRAGMA integrity_check`: "ok" for a sound database, otherwise the problems found, one per line.
    package func integrityCheck() throws -> String {
        try query("PRAGMA integrity_check") { $0.string(at: 0) }.joined(separator: "\n")
    }
}

extension SQLiteConnection {
    /// The numbered parameters of row `row` (from 0) of a multi-row statement with `count` per row:
    /// `?1 … ?count` for row 0, then `?(count + 1) …` for row 1, and so on.
    package static func placeholders(row: Int, perRow count: Int) -> [String] {
        (1...count).map { "?\(row * count + $0)" }
    }
}
