import Foundation

/// A throwaway PostgreSQL primary with one streaming standby in synchronous replication, for failover
/// tests and drills: `initdb`, `pg_basebackup -R` and `pg_ctl` (as the `postgres` user when run as root),
/// both on free loopback ports, cleaned up by a guard process when this process ends (as
/// `PostgresTestCluster` is).
///
/// Set up as an operator would: the primary's `synchronous_standby_names` names the standby before the
/// base backup, so the standby inherits it (`postgresql.auto.conf`). That is the trap of promotion: a
/// promoted standby still waits for a synchronous standby of its own and blocks every commit, so
/// `promoteStandby()` clears it, as the operating docs say to.
public final class PostgresReplicaPair: Sendable {
    /// The standby's name (`cluster_name`, hence its `application_name` in `pg_stat_replication`).
    public static let standbyName = "standby1"
    /// The database the tests use.
    public static let database = "push"

    /// The primary's port on 127.0.0.1.
    public let primaryPort: Int
    /// The standby's port on 127.0.0.1.
    public let standbyPort: Int
    /// The directory holding both data directories (`primary/`, `standby/`) and their logs.
    public let directory: String
    private let asPostgres: Bool

    private init(primaryPort: Int, standbyPort: Int, directory: String, asPostgres: Bool) {
        self.primaryPort = primaryPort
        self.standbyPort = standbyPort
        self.directory = directory
        self.asPostgres = asPostgres
    }

    /// The multi-host URL the instances use: both servers, the writable one chosen by libpq.
    public var url: String {
        "postgresql://postgres@127.0.0.1:\(primaryPort),127.0.0.1:\(standbyPort)/\(Self.database)?target_session_attrs=read-write"
    }

    /// The URL of one of the two servers.
    public func url(port: Int) -> String { "postgresql://postgres@127.0.0.1:\(port)/\(Self.database)" }

    /// Starts the primary, creates the database, turns synchronous replication on, takes the base backup,
    /// starts the standby and returns once a commit on the primary was confirmed by the standby.
    public static func start() async throws -> PostgresReplicaPair {
        guard FileManager.default.isExecutableFile(atPath: "\(PostgresTestCluster.binaries)/pg_basebackup") else {
            throw PostgresTestClusterError("\(PostgresTestCluster.binaries)/pg_basebackup is missing: run `make deps` (postgresql)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-pg-pair-\(getpid())-\(UUID().uuidString.prefix(8))")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let asPostgres = getuid() == 0
        if asPostgres, let account = getpwnam("postgres") {
            guard chown(directory, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                throw PostgresTestClusterError("cannot give \(directory) to postgres")
            }
        }
        try ClusterGuard.start(directory: directory, asPostgres: asPostgres, dataDirectories: ["primary", "standby"])
        // initdb's default pg_hba.conf with -A trust lets 127.0.0.1 connect, replication included.
        try await PostgresTestCluster.run(
            asPostgres, "initdb", ["-D", "\(directory)/primary", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"])
        let primaryPort = try FreePort.pick()
        var standbyPort = try FreePort.pick()
        while standbyPort == primaryPort { standbyPort = try FreePort.pick() }
        let pair = PostgresReplicaPair(primaryPort: primaryPort, standbyPort: standbyPort, directory: directory, asPostgres: asPostgres)
        try await pair.startServer("primary", port: primaryPort)
        try await pair.psql("CREATE DATABASE \(database)", port: primaryPort, database: "postgres")
        // From here on every commit on the primary waits for the standby (synchronous_commit is on).
        try await pair.psql("ALTER SYSTEM SET synchronous_standby_names = '\(standbyName)'", port: primaryPort, database: "postgres")
        try await pair.psql("SELECT pg_reload_conf()", port: primaryPort, database: "postgres")
        try await PostgresTestCluster.run(
            asPostgres, "pg_basebackup",
            ["-D", "\(directory)/standby", "-R", "-X", "stream", "-c", "fast", "-h", "127.0.0.1", "-p", "\(primaryPort)", "-U", "postgres"])
        try await pair.startServer("standby", port: standbyPort)
        // Returns once the standby confirmed it: the pair replicates synchronously.
        try await awaitEvent("a commit confirmed by the standby", within: .seconds(60)) {
            try await pair.psql("CREATE TABLE replication_check (id integer)", port: primaryPort)
        }
        return pair
    }

    /// Starts the server in `name/` on `port` and waits until it accepts connections (a standby: once it
    /// reached a consistent state).
    private func startServer(_ name: String, port: Int) async throws {
        let options = [
            "-p \(port)", "-k \(directory)", "-c listen_addresses=127.0.0.1", "-c fsync=off", "-c full_page_writes=off",
            "-c max_connections=200", "-c shared_buffers=32MB", "-c cluster_name=\(name == "standby" ? Self.standbyName : name)",
            "-c wal_sender_timeout=5s", "-c wal_receiver_timeout=5s",
        ].joined(separator: " ")
        try await PostgresTestCluster.run(
            asPostgres, "pg_ctl", ["-D", "\(directory)/\(name)", "-o", options, "-l", "\(directory)/\(name).log", "-w", "-t", "60", "start"])
    }

    /// The postmaster's process id of `name` (`primary` or `standby`), from its `postmaster.pid`.
    public func postmasterPID(_ name: String) throws -> Int32 {
        let text = try String(contentsOfFile: "\(directory)/\(name)/postmaster.pid", encoding: .utf8)
        guard let line = text.split(separator: "\n").first, let pid = pid_t(line) else {
            throw PostgresTestClusterError("no postmaster.pid in \(directory)/\(name)")
        }
        return pid
    }

    /// Stops the primary at once, as a crash would (`pg_ctl stop -m immediate`: no checkpoint, connections
    /// reset).
    public func stopPrimaryHard() async throws {
        try await PostgresTestCluster.run(asPostgres, "pg_ctl", ["-D", "\(directory)/primary", "-m", "immediate", "-w", "stop"])
    }

    /// Stops the standby (`pg_ctl stop -m fast`): from then on every commit on the primary waits for it.
    public func stopStandby() async throws {
        try await PostgresTestCluster.run(asPostgres, "pg_ctl", ["-D", "\(directory)/standby", "-m", "fast", "-w", "stop"])
    }

    /// Freezes the primary (SIGSTOP of the postmaster and every backend): it keeps its connections and its
    /// kernel keeps acknowledging, but nothing answers, as a machine that hangs.
    public func freezePrimary() throws { try signalPrimary(SIGSTOP) }

    /// Fences the frozen primary for good: SIGKILL of every one of its processes (woken first), so it can
    /// never come back as a second primary.
    public func killPrimary() throws {
        try signalPrimary(SIGKILL)
        try? signalPrimary(SIGCONT)
    }

    /// Sends `signal` to the primary's postmaster and its children.
    private func signalPrimary(_ signal: Int32) throws {
        let postmaster = try postmasterPID("primary")
        var pids = [postmaster]
        if let children = try? String(contentsOfFile: "/proc/\(postmaster)/task/\(postmaster)/children", encoding: .utf8) {
            pids += children.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        for pid in pids { kill(pid, signal) }
    }

    /// Promotes the standby (`pg_ctl promote -w`) and, as an operator must, clears the
    /// `synchronous_standby_names` it inherited (`clearInheritedSynchronousStandby`), without which every
    /// commit on it would wait for a standby that does not exist. Returns the value it inherited.
    @discardableResult
    public func promoteStandby(clearInheritedSynchronousStandby: Bool = true) async throws -> String {
        try await PostgresTestCluster.run(asPostgres, "pg_ctl", ["-D", "\(directory)/standby", "-w", "-t", "60", "promote"])
        let inherited = try await query("SHOW synchronous_standby_names", port: standbyPort).first ?? ""
        if clearInheritedSynchronousStandby {
            try await psql("ALTER SYSTEM RESET synchronous_standby_names", port: standbyPort, database: "postgres")
            try await psql("SELECT pg_reload_conf()", port: standbyPort, database: "postgres")
        }
        return inherited
    }

    /// Runs one SQL command as the superuser (`psql -c`) on the server at `port`.
    public func psql(_ sql: String, port: Int, database: String = PostgresReplicaPair.database) async throws {
        let result = try await PostgresTestCluster.spawn(
            "/usr/bin/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-c", sql])
        guard result.status == 0 else { throw PostgresTestClusterError("psql \(sql) failed: \(result.output)") }
    }

    /// Runs one SQL query on the server at `port` and returns its rows (`psql -At`).
    public func query(_ sql: String, port: Int, database: String = PostgresReplicaPair.database) async throws -> [String] {
        let result = try await PostgresTestCluster.spawn(
            "/usr/bin/psql",
            ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-c", sql])
        guard result.status == 0 else { throw PostgresTestClusterError("psql \(sql) failed: \(result.output)") }
        return result.output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Stops both servers (a frozen one woken first) and removes the directory.
    public func stop() async {
        for name in ["primary", "standby"] {
            guard let pid = try? postmasterPID(name) else { continue }
            kill(pid, SIGCONT)
            try? await PostgresTestCluster.run(asPostgres, "pg_ctl", ["-D", "\(directory)/\(name)", "-m", "immediate", "-w", "stop"])
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
