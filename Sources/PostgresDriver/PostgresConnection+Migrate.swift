extension PostgresConnection {
    /// A key for `pg_advisory_xact_lock`: instances that start together migrate one after the other.
    package static let migrationLockKey: Int64 = 0x7075_7368_6d69_6772  // "pushmigr"

    /// The schema version recorded in `schema_migrations` (0 for an empty database).
    package func schemaVersion() throws(PostgresError) -> Int {
        let exists = try query("SELECT to_regclass('schema_migrations') IS NOT NULL")
        guard exists.count == 1, exists[0].bool(at: 0) else { return 0 }
        let rows = try query("SELECT coalesce(max(version), 0)::bigint FROM schema_migrations")
        return rows.count == 1 ? rows[0].int(at: 0) : 0
    }

    /// Applies the steps after the recorded version, all in one transaction under an advisory lock: step *n*
    /// (a name and the SQL it runs, several statements with no parameters) brings the schema to version *n*,
    /// recorded with its name as a row of `schema_migrations`;
    /// refuses (`schemaTooNew`) a database whose version is newer than `steps`. Returns the steps applied.
    @discardableResult
    package func migrate(_ steps: [(name: String, sql: String)], now: Int64) throws -> Int {
        try transaction { db in
            try db.query("SELECT pg_advisory_xact_lock($1)", [.integer(Self.migrationLockKey)])
            // No NOTICE ("already exists, skipping") on stderr at every start after the first.
            try db.execute("SET LOCAL client_min_messages = warning")
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version    integer PRIMARY KEY,
                    name       text NOT NULL,
                    applied_at bigint NOT NULL
                )
                """)
            let current = try db.schemaVersion()
            guard current <= steps.count else {
                throw PostgresError(
                    kind: .schemaTooNew, function: "migrate",
                    message: "database schema version \(current) is newer than this build (\(steps.count)): upgrade push-server")
            }
            for (index, step) in steps.enumerated() where index + 1 > current {
                try db.execute(step.sql)
                try db.run(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                    [.integer(Int64(index + 1)), .text(step.name), .integer(now)])
            }
            return max(0, steps.count - current)
        }
    }
}
