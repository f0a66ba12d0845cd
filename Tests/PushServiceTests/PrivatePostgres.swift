import Foundation
import TestSupport

/// A PostgreSQL 15 server of a test's own (initdb and pg_ctl as the `postgres` user), for a test that
/// stops it the hard way.
struct PrivatePostgres {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    let directory: String
    let port: Int

    var data: String { directory + "/data" }
    var url: String { url(database: "postgres") }

    func url(database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    /// Makes `path` the `postgres` user's (initdb refuses a directory it cannot write).
    static func giveToPostgres(_ path: String) throws {
        guard let account = getpwnam("postgres"), chown(path, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
            throw Failure("cannot give \(path) to postgres")
        }
    }

    static func create(in directory: String) async throws -> PrivatePostgres {
        let initdb = await asPostgres(
            "initdb", ["-D", directory + "/data", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync", "--wal-segsize=1"])
        guard initdb.status == 0 else { throw PrivatePostgres.Failure("initdb failed: \(initdb.output)") }
        let server = PrivatePostgres(directory: directory, port: try FreePort.pick())
        let started = await server.start()
        guard started.status == 0 else { throw PrivatePostgres.Failure("pg_ctl start failed: \(started.output)") }
        return server
    }

    /// Runs a PostgreSQL program as `postgres`, with every descriptor above 2 closed first: a server
    /// started mid-run would otherwise keep a pipe of another test's Foundation `Process` open, and that
    /// test would wait for its end for ever.
    private static func asPostgres(_ program: String, _ arguments: [String]) async -> (status: Int32, output: String) {
        do {
            return try await SmallFilesystem.run(
                "/usr/bin/python3",
                [
                    "-c", "import os, sys; os.closerange(3, 65536); os.execv(sys.argv[1], sys.argv[1:])",
                    "/usr/sbin/runuser", "-u", "postgres", "--", "\(PostgresTestCluster.binaries)/\(program)",
                ] + arguments)
        } catch {
            return (-1, "\(error)")
        }
    }

    /// Starts the server. After a crash (a PANIC) it stays down until started again, as under a supervisor
    /// that restarts it (`restart_after_crash` off): with the default, its own restart raced the test's.
    func start() async -> (status: Int32, output: String) {
        let options = [
            "-p \(port)", "-k \(directory)", "-c listen_addresses=127.0.0.1", "-c fsync=off", "-c max_wal_size=4MB",
            "-c min_wal_size=2MB", "-c restart_after_crash=off",
        ].joined(separator: " ")
        return await Self.asPostgres("pg_ctl", ["-D", data, "-o", options, "-l", "/dev/null", "-w", "-t", "60", "start"])
    }

    /// Whether the postmaster is gone (`pg_ctl status` says no server is running: exit status 3).
    func isStopped() async -> Bool {
        await Self.asPostgres("pg_ctl", ["-D", data, "status"]).status == 3
    }

    func stop() async {
        _ = await Self.asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
    }

    func psql(_ sql: String) async -> (status: Int32, output: String) {
        do {
            return try await SmallFilesystem.run(
                "/usr/bin/psql",
                ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", "postgres", "-c", sql])
        } catch {
            return (-1, "\(error)")
        }
    }
}
