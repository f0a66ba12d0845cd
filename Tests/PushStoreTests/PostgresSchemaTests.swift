import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("PostgreSQL schema migrations")
struct PostgresSchemaTests {
    @Test func anEmptyDatabaseIsMigratedToTheCurrentVersion() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller)
        #expect(try await database.schemaVersion() == PostgresSchema.migrations.count)
        let names = try await database.pool.withConnection { db in
            try db.query("SELECT name FROM schema_migrations ORDER BY version").map { $0.string(at: 0) }
        }
        #expect(names == PostgresSchema.migrations.map(\.name))
        // Opening again (another instance, or a restart) applies nothing twice.
        let again = try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller)
        #expect(try await again.schemaVersion() == PostgresSchema.migrations.count)
    }

    @Test func instancesStartingTogetherMigrateOnce() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let versions = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 { group.addTask { try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller).schemaVersion() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(versions == Array(repeating: PostgresSchema.migrations.count, count: 3))
    }

    /// The previous version (no `drop_engagements`) with a user, a queued outbox row and three pending
    /// drops: one caught mid-match (its mate requests stored), two engaging the same user.
    @Test func dataOfThePreviousVersionIsKept() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let previous = Array(PostgresSchema.migrations.prefix { $0.name != "drop-engagements" })
        do {
            let old = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: nil, clock: .caller, migrations: previous)
            #expect(try await old.schemaVersion() == previous.count)
            _ = try await PostgresUserRepository(database: old).put(id: "ana", card: card(), now: t0)
            let t = t0.storeMillis
            try await old.pool.withConnection { db in
                // The row as that version wrote it (today's code also writes `channel_id`).
                try db.run(
                    """
                    INSERT INTO outbox (id, push_id, token, topic, push_type, payload, environment, state, attempts,
                        next_attempt_at, created_at, updated_at)
                    VALUES ('a', 'push-1', $1, $2, 'alert', $3, 'production', 'queued', 0, $4, $4, $4)
                    """, [.text(token(1).hex), .text(topic), .bytes(Array(#"{"aps":{}}"#.utf8)), .integer(t)])
                let insertDrop = "INSERT INTO drops VALUES ($1, $2, $3, 'pending', $4, $5, NULL, NULL)"
                for (id, initiator, peer, created) in [("d1", "ana", "bob", t), ("d2", "cy", "dee", t + 1), ("d3", "eve", "cy", t + 2)] {
                    try db.run(insertDrop, [.text(id), .text(initiator), .text(peer), .integer(created), .integer(created + 10_000)])
                }
                try db.run(
                    "INSERT INTO mate_requests VALUES ('d1.initiator', 'd1', 'bob', 'ana', 'pending', $1, NULL)", [.integer(t + 500)])
            }
        }
        let repositories = try await PushRepositories.postgres(url: url, poolSize: 1, clock: .caller)
        #expect(try await repositories.users.user(id: "ana")?.card == card())
        let claimed = try await repositories.outbox.claim(limit: 5, now: t0)
        #expect(claimed.map(\.id) == ["a"] && claimed.items.first?.target.channelID == nil)
        // The drop caught mid-match is matched as of its first mate request; the other two stay pending,
        // and the user both engage is held by the older one.
        let d1 = try #require(try await repositories.drops.drop(id: "d1"))
        #expect(d1.state == .matched && d1.matchedAt == at(0.5))
        #expect(try await repositories.drops.pending().map(\.id) == ["d2", "d3"])
        #expect(try await repositories.drops.current(userID: "cy", now: at(1), window: .seconds(10)).0?.id == "d2")
        #expect(try await repositories.drops.report(dropReport("bob", "zed"), now: at(1)).0 != .busy)
        #expect(try await repositories.drops.report(dropReport("dee", "zed"), now: at(1)).0 == .busy)
    }

    @Test func aNewerSchemaIsRefusedWithAClearError() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let later = SchemaMigration(name: "from-the-future", sql: "CREATE TABLE future (x integer)")
        _ = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: nil, clock: .caller, migrations: PostgresSchema.migrations + [later])
        await #expect {
            _ = try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller)
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            let count = PostgresSchema.migrations.count
            return error.kind == .schemaTooNew
                && error.message.contains("version \(count + 1) is newer than this build (\(count))")
        }
    }
}
