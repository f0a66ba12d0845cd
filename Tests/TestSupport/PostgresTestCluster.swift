import Foundation

/// A throwaway PostgreSQL cluster for the tests: `initdb` and `pg_ctl` (run as the `postgres` user when
/// the tests run as root) on a temporary directory, listening on a free loopback port, started once per
/// test process on first use (`shared()`); each test takes a fresh database of its own (`createDatabase`).
///
/// Nothing outlives the test process: a small guard process, started first, holds the read end of a pipe
/// whose write end only this process has (close-on-exec). When this process ends, however it ends (a
/// normal exit, a crash, SIGKILL), the guard reads end-of-file, stops the server (`pg_ctl -m immediate`)
/// and removes the directory. The guard has a process group of its own and ignores SIGINT and SIGTERM,
/// so a Ctrl-C aimed at the test run does not skip the clean-up.
public final class PostgresTestCluster: Sendable {
    /// The directory of the PostgreSQL 15 programs.
    public static let binaries = "/usr/lib/postgresql/15/bin"
    /// The role that logs in with a password (scram-sha-256 over TCP), an ordinary role as an application's
    /// would be (no superuser); every other role is trusted.
    public static let passwordUser = "push_password_user"
    /// That role's password.
    public static let password = "s3cret-pw"

    /// The TCP port on 127.0.0.1.
    public let port: Int
    /// The cluster's directory (data in `data/`, the Unix socket and the log beside it).
    public let directory: String
    private let counter = Counter()

    private init(port: Int, directory: String) {
        self.port = port
        self.directory = directory
    }

    private static let starter = Starter()

    /// The cluster of this test process, started on first use.
    public static func shared() async throws -> PostgresTestCluster { try await starter.cluster() }

    /// The URL of `database` for `user` (no password: trusted), over TCP.
    public func url(database: String, user: String = "postgres", password: String? = nil) -> String {
        let credentials = password.map { "\(user):\($0)" } ?? user
        return "postgres://\(credentials)@127.0.0.1:\(port)/\(database)"
    }

    /// Creates a new, empty database (owned by `owner`, the superuser by default) and returns its URL.
    public func createDatabase(owner: String? = nil) async throws -> String {
        let name = "push_test_\(getpid())_\(counter.next())"
        try await psql("CREATE DATABASE \(name)" + (owner.map { " OWNER \($0)" } ?? ""))
        return url(database: name)
    }

    /// Runs one SQL command as the superuser on the `postgres` database (`psql -c`).
    public func psql(_ sql: String, database: String = "postgres") async throws {
        let result = try await Self.spawn(
            "/usr/bin/psql",
            ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-c", sql])
        guard result.status == 0 else { throw PostgresTestClusterError("psql \(sql) failed: \(result.output)") }
    }

    /// Runs one SQL query as the superuser on `database` and returns its rows, one per line, columns
    /// separated by `|` (`psql -At`).
    public func query(_ sql: String, database: String = "postgres") async throws -> [String] {
        let result = try await Self.spawn(
            "/usr/bin/psql",
            ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-c", sql])
        guard result.status == 0 else { throw PostgresTestClusterError("psql \(sql) failed: \(result.output)") }
        return result.output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// initdb, the guard, the server; a port taken meanwhile by someone else is tried again with another.
    fileprivate static func start() async throws -> PostgresTestCluster {
        guard FileManager.default.isExecutableFile(atPath: "\(binaries)/initdb") else {
            throw PostgresTestClusterError("\(binaries)/initdb is missing: run `make deps` (postgresql)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let asPostgres = getuid() == 0
        if asPostgres, let account = getpwnam("postgres") {
            guard chown(directory, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                throw PostgresTestClusterError("cannot give \(directory) to postgres")
            }
        }
        try ClusterGuard.start(directory: directory, asPostgres: asPostgres)
        let data = "\(directory)/data"
        try await run(asPostgres, "initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"])
        let hba = """
            local all all trust
            host all \(passwordUser) 127.0.0.1/32 scram-sha-256
            host all all 127.0.0.1/32 trust

            """
        try hba.write(toFile: "\(data)/pg_hba.conf", atomically: false, encoding: .utf8)
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try FreePort.pick()
            let options = [
                "-p \(port)", "-k \(directory)", "-c listen_addresses=127.0.0.1", "-c fsync=off",
                "-c synchronous_commit=off", "-c full_page_writes=off", "-c max_connections=300",
                "-c shared_buffers=32MB", "-c password_encryption=scram-sha-256",
            ].joined(separator: " ")
            do {
                try await run(asPostgres, "pg_ctl", ["-D", data, "-o", options, "-l", "\(directory)/server.log", "-w", "-t", "60", "start"])
                let cluster = PostgresTestCluster(port: port, directory: directory)
                try await cluster.psql("CREATE ROLE \(passwordUser) LOGIN PASSWORD '\(password)'")
                return cluster
            } catch {
                lastError = error
            }
        }
        throw lastError ?? PostgresTestClusterError("the test cluster did not start")
    }

    /// Runs one of the PostgreSQL programs to completion (as `postgres` when `asPostgres`).
    static func run(_ asPostgres: Bool, _ program: String, _ arguments: [String]) async throws {
        let path = "\(binaries)/\(program)"
        let result =
            asPostgres
            ? try await spawn("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments)
            : try await spawn(path, arguments)
        guard result.status == 0 else { throw PostgresTestClusterError("\(program) failed: \(result.output)") }
    }

    /// Runs `executable` to completion on a thread of its own (with `posix_spawn`: Foundation's `Process`
    /// waits for every descriptor it passed on to close, and the postmaster that `pg_ctl` starts keeps
    /// running).
    static func spawn(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = try SpawnedProcess(executable, arguments)
        let name = (executable as NSString).lastPathComponent
        return try await awaitEvent("\(name) \(arguments.prefix(4).joined(separator: " ")) to exit", within: .seconds(180)) {
            await offPool { process.waitForExit() }
        }
    }

    /// Starts the cluster once; every caller gets the same one.
    private actor Starter {
        private var task: Task<PostgresTestCluster, any Error>?

        func cluster() async throws -> PostgresTestCluster {
            if let task { return try await task.value }
            let task = Task { try await PostgresTestCluster.start() }
            self.task = task
            return try await task.value
        }
    }
}

/// Why the test cluster could not be used.
public struct PostgresTestClusterError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
