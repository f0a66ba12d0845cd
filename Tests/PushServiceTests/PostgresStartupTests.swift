import Foundation
import PushStore
import PushStoreSQL
import TestSupport
import Testing

/// The real `push-server` binary refuses a PostgreSQL database it cannot use: one line on stderr, exit 78.
@Suite("push-server on a PostgreSQL database it cannot use")
struct PostgresStartupTests {
    /// Runs push-server (embedded mock APNs, scratch data directory) against `database`; returns its exit
    /// status and the lines it wrote (standard output and error together).
    static func start(database: String) async throws -> (status: Int32, lines: [String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-pg-start-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The URL comes from PUSH_DATABASE: one with a password is refused as an option value.
        let process = try SpawnedProcess(
            BuiltServer.path, ["--embedded", "--data-dir", directory, "--port", "0"],
            environment: ["PUSH_DATABASE": database, "PUSH_API_KEY": "start-key-0123456789"])
        let (status, output) = await offPool { process.waitForExit() }
        return (status, output.split(separator: "\n").map(String.init))
    }

    @Test("a wrong URL, a refused connection, a wrong password and a newer schema: one line each, exit 78", .timeLimit(.minutes(2)))
    func badDatabasesStopTheStart() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let newer = try await cluster.createDatabase()
        // A database this build migrated, then marked by a newer build's migration.
        _ = try await PushRepositories.postgres(url: newer, poolSize: 1, instanceID: "migrator")
        try await cluster.psql(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from a newer build', 0)",
            database: String(newer.split(separator: "/").last!))
        let refusedPort = try FreePort.pick()
        let cases: [(String, String, String)] = [
            ("wrong URL", "postgres://", "is not postgres://"),
            ("refused connection", "postgres://postgres@127.0.0.1:\(refusedPort)/push", "cannot be opened"),
            (
                "wrong password",
                cluster.url(database: "postgres", user: PostgresTestCluster.passwordUser, password: "not-the-password"),
                "password"
            ),
            ("newer schema", newer, "newer than this build"),
        ]
        for (name, url, expected) in cases {
            let (status, lines) = try await Self.start(database: url)
            #expect(status == 78, "\(name): exit \(status), \(lines)")
            #expect(lines.count == 1, "\(name): \(lines)")
            #expect(lines.first?.contains(expected) == true, "\(name): \(lines)")
            #expect(lines.first?.contains("not-the-password") == false, "\(name): the password is not logged")
        }
    }
}
