import APNSCore
import Foundation
import PostgresDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Target lists compressed with LZ4 where the server has it (`PostgresSchema.outboxTargetsLZ4`).
@Suite("PostgreSQL outbox target lists")
struct PostgresOutboxTargetsTests {
    @Test func aLargeTargetListIsStoredWithLZ4AndReadBack() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        let items = PostgresCompleteCostTests.push(count: 5_000)
        try await outbox.enqueue(items)
        let (hasLZ4, method) = try await database.withConnection { db in
            (
                try db.query("SELECT count(*) FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)")[0]
                    .int(at: 0) == 1,
                try db.query("SELECT coalesce(pg_column_compression(targets), 'none') FROM outbox_pushes")[0].string(at: 0)
            )
        }
        #expect(method == (hasLZ4 ? "lz4" : "pglz"))
        let claimed = try await outbox.claim(limit: 5_000, now: t0).items
        #expect(claimed.map(\.target) == items.map(\.target))
    }
}
