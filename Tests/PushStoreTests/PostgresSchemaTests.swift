import Foundation
import TestSupport
import Testing

@testable import PushStore

@Suite("PostgreSQL schema migrations")
struct PostgresSchemaTests {
    @Test func anEmptyDatabaseIsMigratedToTheCurrentVersion() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1)
        #expect(try await database.schemaVersion() == PostgresSchema.migrations.count)
        let names = try await database.pool.withConnection { db in
            try db.query("SELECT name FROM schema_migrations ORDER BY version").map { $0.string(at: 0) }
        }
        #expect(names == PostgresSchema.migrations.map(\.name))
        // Opening again (another instance, or a restart) applies nothing twice.
        let again = try await PostgresDatabase.open(url: url, poolSize: 1)
        #expect(try await again.schemaVersion() == PostgresSchema.migrations.count)
    }

    @Test func instancesStartingTogetherMigrateOnce() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let versions = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 { group.addTask { try await PostgresDatabase.open(url: url, poolSize: 1).schemaVersion() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(versions == Array(repeating: PostgresSchema.migrations.count, count: 3))
    }

    @Test func dataOfThePreviousVersionIsKept() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let previous = Array(PostgresSchema.migrations.dropLast())
        do {
            let old = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: nil, migrations: previous)
            #expect(try await old.schemaVersion() == previous.count)
            _ = try await PostgresUserRepository(database: old).put(id: "ana", card: card(), now: t0)
        }
        let repositories = try await PushRepositories.postgres(url: url, poolSize: 1)
        #expect(try await repositories.users.user(id: "ana")?.card == card())
        try await repositories.outbox.enqueue([outboxItem("a")])
        #expect(try await repositories.outbox.claim(limit: 5, now: t0).map(\.id) == ["a"])
    }

    @Test func aNewerSchemaIsRefusedWithAClearError() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let later = PostgresMigration(name: "from-the-future", sql: "CREATE TABLE future (x integer)")
        _ = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: nil, migrations: PostgresSchema.migrations + [later])
        await #expect {
            _ = try await PostgresDatabase.open(url: url, poolSize: 1)
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            let count = PostgresSchema.migrations.count
            return error.kind == .schemaTooNew
                && error.message.contains("version \(count + 1) is newer than this build (\(count))")
        }
    }
}
