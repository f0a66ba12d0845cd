import Foundation
import PostgresDriver
public import PushStore
import PushSync

/// One PostgreSQL database shared by any number of push-server instances: this instance's connection pool
/// and its `LISTEN` connection, shared by the PostgreSQL repositories of one `PushRepositories`.
///
/// Opening connects (a wrong URL, a refused connection, a wrong password or an unknown database throws a
/// `PostgresError` saying which), migrates the schema (`PostgresSchema`, refusing a newer one) and starts
/// listening for new outbox rows. Unlike SQLite, opening puts nothing back in the queue: other instances
/// may be sending the rows in flight, which come back only when their lease ends.
public final class PostgresDatabase: PushDatabase {
    /// The channel `NOTIFY`ed when outbox rows are enqueued.
    static let outboxChannel = "push_outbox"

    /// This instance's name in the rows it claims (`owner`), unique per process by default.
    public let instanceID: String
    /// Whose clock shared times are compared and written with (`PostgresClock`).
    public let clock: PostgresClock
    /// The connection pool.
    let pool: PostgresPool
    /// The `LISTEN` connection.
    let listener: PostgresListener
    private let closed = PThreadLock(false)
    /// Always 0: in-flight rows are reclaimed by lease, not at open (see the type's summary).
    public let recoveredAtOpen = 0
    /// Writes refused for space (SQLSTATE 53100), which `/healthz` and the metrics report.
    public let writeHealth: StoreWriteHealth? = StoreWriteHealth()
    /// Advisory locks the drop operations took (`withDropTransaction`).
    let dropLocks = PostgresDropLocks()
    /// The grouped drop operations waiting for a transaction (`withDropTransaction`).
    let dropGroups: PostgresDropGroups
    /// The target lists of pushes this instance claimed lately (`OutboxTargetCache`).
    let targetCache = OutboxTargetCache()
    /// Round trips and statements this instance's pool sent (`PostgresTraffic`).
    var traffic: PostgresTraffic { pool.traffic }

    private init(instanceID: String, clock: PostgresClock, pool: PostgresPool, listener: PostgresListener) {
        self.instanceID = instanceID
        self.clock = clock
        self.pool = pool
        self.listener = listener
        self.dropGroups = PostgresDropGroups(runnerLimit: pool.size / 2)
    }

    /// Connects to `url` (`postgres://user:password@host:port/database?…`, or libpq `key=value` pairs)
    /// with up to `poolSize` connections, migrates the schema and starts listening. Shared times follow
    /// `clock`: the database's own unless a test steps time by hand (`PostgresClock`).
    /// Each call on the pool that the server has not answered after `callTimeout` has its connection cut
    /// (a primary that stopped without a reset); nil: no limit.
    public static func open(
        url: String, poolSize: Int = 4, instanceID: String? = nil, clock: PostgresClock = .database,
        callTimeout: Duration? = defaultCallTimeout
    ) async throws -> PostgresDatabase {
        try await open(
            url: url, poolSize: poolSize, instanceID: instanceID, clock: clock, migrations: PostgresSchema.migrations,
            callTimeout: callTimeout)
    }

    /// The pool's default deadline for one call: 15 s, then a cancel request, and 2 s later the connection is cut.
    public static let defaultCallTimeout: Duration = PostgresPool.defaultCallTimeout

    /// Opens the database migrated by `migrations` (tests pass more or fewer steps than this build's).
    static func open(
        url: String, poolSize: Int, instanceID: String?, clock: PostgresClock = .database, migrations: [SchemaMigration],
        callTimeout: Duration? = defaultCallTimeout
    ) async throws -> PostgresDatabase {
        try PostgresConnection.validate(url)
        let pool = PostgresPool(conninfo: url, size: poolSize, callTimeout: callTimeout)
        let now = Date().storeMillis
        // Migrations run without the pool's deadline (and without the server's statement_timeout).
        _ = try await pool.withConnection(timeout: nil) { try $0.migrate(migrations.map(\.step), now: now) }
        let listener = try await PostgresListener.start(conninfo: url, channels: [outboxChannel])
        pool.announce { listener.announce($0) }
        let name = instanceID ?? "\(hostName())-\(getpid())-\(OutboxID.make().suffix(8))"
        return PostgresDatabase(instanceID: name, clock: clock, pool: pool, listener: listener)
    }

    /// True when `text` names a PostgreSQL database: a `postgres://` or `postgresql://` URL (several hosts
    /// allowed, `postgresql://a:5432,b:5432/db?target_session_attrs=read-write`) or libpq `key=value` pairs
    /// (`host=a,b port=5432,5432 dbname=db`).
    public static func isConnectionString(_ text: String) -> Bool { PostgresConnection.isConnectionString(text) }

    /// The settings of a connection string as libpq reads them (nil unless it parses).
    public static func connectionSettings(_ text: String) -> [String: String]? { PostgresConnection.settings(text) }

    /// A connection string with its password replaced by `***`, for logs and errors.
    public static func redacted(_ text: String) -> String { PostgresConnection.redacted(text) }

    /// This machine's name (`gethostname`, no resolver lookups).
    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "host" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { close() }

    /// Stops listening and closes the idle connections (those in use close when given back); repository
    /// calls after this fail as `PushStoreError.unavailable`. For an instance shutting down. Idempotent.
    public func close() {
        guard
            closed.withLock({ closed in
                defer { closed = true }
                return !closed
            })
        else { return }
        listener.stop()
        pool.close()
    }

    /// Throws (`PushStoreError.unavailable` when it cannot be reached) unless the database answers `SELECT 1`.
    public func ping() async throws {
        try await withConnection { _ = try $0.query("SELECT 1") }
    }

    /// Runs `body` on a pooled connection (`PostgresPool.withConnection`) for a repository: a database that
    /// cannot be reached is reported as `PushStoreError.unavailable`.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        do {
            return try await pool.withConnection(body)
        } catch let error as PostgresError where error.isUnavailable {
            throw PushStoreError.unavailable(error.description)
        } catch let error as PostgresError where error.isStorageFull {
            writeHealth?.recordStorageFull()
            throw PushStoreError.storageFull(error.description)
        }
    }

    /// Runs `body` in one transaction (`PostgresPool.transaction`) for a repository, reporting a database
    /// that cannot be reached as `PushStoreError.unavailable`.
    func transaction<T: Sendable>(
        isolation: PostgresIsolation = .readCommitted, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        do {
            return try await pool.transaction(isolation: isolation, body)
        } catch let error as PostgresError where error.isUnavailable {
            throw PushStoreError.unavailable(error.description)
        } catch let error as PostgresError where error.isStorageFull {
            writeHealth?.recordStorageFull()
            throw PushStoreError.storageFull(error.description)
        }
    }

    /// The schema version recorded in `schema_migrations`.
    public func schemaVersion() async throws -> Int {
        try await pool.withConnection { try $0.schemaVersion() }
    }

    /// How many times new outbox rows were announced so far (also bumped after the listening connection
    /// came back from a break, when announcements may have been missed): pass it to `waitForOutbox(after:)`.
    public var outboxGeneration: UInt64 { listener.generation(Self.outboxChannel) }

    /// Returns once new outbox rows were announced (by any instance) after `generation`; returns the new
    /// generation. Read `outboxGeneration` before looking for work, so nothing enqueued in between is missed.
    @discardableResult
    public func waitForOutbox(after generation: UInt64) async -> UInt64 {
        await listener.wait(on: Self.outboxChannel, after: generation)
    }

    /// Rows in one of the tables (for tests and diagnostics).
    func rowCount(_ table: String) async throws -> Int {
        precondition(
            ["users", "devices", "outbox", "outbox_pushes", "outbox_state", "outbox_segments", "drops", "mate_requests", "idempotency_keys"]
                .contains(table))
        return try await pool.withConnection { try $0.query("SELECT count(*) FROM \(table)")[0].int(at: 0) }
    }
}
