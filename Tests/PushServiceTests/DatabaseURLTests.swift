import Foundation
import PushStoreSQL
import Testing

@testable import PushService

/// The store setting names PostgreSQL however libpq takes it: one host or several, a URL or key=value pairs.
@Suite("PostgreSQL connection strings in the configuration")
struct DatabaseURLTests {
    static let passes = [
        "postgres://push:pw@db.example:5432/push",
        "postgresql://push:pw@a.example:5432,b.example:5433/push?target_session_attrs=read-write",
        "postgresql://push@[::1]:5432,10.0.0.2:5432/push?target_session_attrs=read-write&connect_timeout=3",
        "host=a.example,b.example port=5432,5433 dbname=push user=push password=pw target_session_attrs=read-write",
        "dbname=push host=/var/run/postgresql",
    ]

    @Test("a multi-host URL and key=value pairs are PostgreSQL and pass the start-up check", arguments: passes)
    func multiHostPasses(_ value: String) throws {
        var configuration = PushServiceConfiguration()
        configuration.databasePath = value
        #expect(configuration.usesPostgres)
        try StartupChecks.database(configuration)
    }

    @Test("a SQLite path is not PostgreSQL")
    func sqlitePath() {
        var configuration = PushServiceConfiguration()
        for path in ["/var/lib/push/push.sqlite", "./var/host=1.sqlite", "push.sqlite"] {
            configuration.databasePath = path
            #expect(!configuration.usesPostgres, "\(path)")
        }
    }

    @Test("a connection string without a host or a database is refused")
    func incomplete() {
        var configuration = PushServiceConfiguration()
        for value in ["postgres://", "postgresql://a.example:5432,b.example:5433", "host=a.example user=push"] {
            configuration.databasePath = value
            #expect(throws: ConfigurationError.self, "\(value)") { try StartupChecks.database(configuration) }
        }
    }

    @Test("the password never reaches a log line, whichever form names it")
    func redacted() {
        var configuration = PushServiceConfiguration()
        let cases = [
            (
                "postgresql://push:s3cret@a.example:5432,b.example:5433/push?target_session_attrs=read-write",
                "postgresql://push:***@a.example:5432,b.example:5433/push?target_session_attrs=read-write"
            ),
            ("postgres://push:s3cret@db.example/push", "postgres://push:***@db.example/push"),
            ("postgres://push@db.example/push?password=s3cret&sslmode=require", "postgres://push@db.example/push?password=***&sslmode=require"),
            ("host=a,b port=1,2 dbname=push password=s3cret user=push", "host=a,b port=1,2 dbname=push password=*** user=push"),
        ]
        for (value, expected) in cases {
            configuration.databasePath = value
            #expect(configuration.databaseDescription == expected)
            #expect(!configuration.databaseDescription.contains("s3cret"))
        }
    }

    @Test("database_call_timeout_s in the configuration file")
    func callTimeout() throws {
        #expect(PushServiceConfiguration().databaseCallTimeout == .seconds(15))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("call-timeout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("c.json").path
        try #"{"database_call_timeout_s": 2.5}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try PushServiceConfiguration.load(arguments: ["--config", file], environment: [:])
        #expect(configuration.databaseCallTimeout == .milliseconds(2_500))
        try #"{"database_call_timeout_s": 0}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            try PushServiceConfiguration.load(arguments: ["--config", file], environment: [:])
        } throws: { error in
            (error as? ConfigurationError)?.message.contains("database_call_timeout_s") == true
        }
    }
}
