import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// A push's rows found by its id alone (`PostgresSchema.outboxByPush`).
@Suite("PostgreSQL outbox rows by push")
struct PostgresOutboxByPushTests {
    /// Rows written under the previous version are found by push after the step (and the later ones), in
    /// enqueue order, through the index of pushes by push id.
    @Test func rowsOfThePreviousVersionAreReadByPushInEnqueueOrder() async throws {
        let (url, old, steps) = try await databaseBefore(PostgresSchema.outboxByPush)
        #expect(steps == PostgresSchema.migrations.count - 1)
        let before = PostgresOutboxRepository(database: old)
        // Two pushes, the second enqueued in two calls around a third push.
        try await before.enqueue((0..<3).map { outboxItem("a\($0)", push: "a", token: $0) })
        try await before.enqueue((0..<2).map { outboxItem("b\($0)", push: "b", token: $0) })
        try await before.enqueue((0..<2).map { outboxItem("c\($0)", push: "c", token: $0) })
        try await before.enqueue((2..<4).map { outboxItem("b\($0)", push: "b", token: $0) })
        old.close()

        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "new", clock: .caller)
        #expect(try await database.schemaVersion() == PostgresSchema.migrations.count)
        let outbox = PostgresOutboxRepository(database: database)
        try await outbox.enqueue([outboxItem("b4", push: "b", token: 4)])
        #expect(try await outbox.items(pushID: "b").map(\.id) == ["b0", "b1", "b2", "b3", "b4"])
        #expect(try await outbox.items(pushID: "a").map(\.id) == ["a0", "a1", "a2"])
        #expect(try await outbox.items(pushID: "none").isEmpty)
        // A table this small is read whole; with scans of whole tables priced out, the read goes by the index.
        let (definition, plan) = try await database.pool.transaction { db in
            db.executeWithNext("SET LOCAL enable_seqscan = off")
            return (
                try db.query("SELECT indexdef FROM pg_indexes WHERE indexname = 'outbox_pushes_by_push'")[0].string(at: 0),
                try db.query("EXPLAIN (COSTS OFF) SELECT \(PostgresOutboxPush.columns) FROM outbox_pushes p WHERE p.push_id = 'b' ORDER BY p.lo")
                    .map { $0.string(at: 0) }.joined(separator: "\n")
            )
        }
        #expect(definition.hasSuffix("(push_id)"))
        #expect(plan.contains("Index Scan using outbox_pushes_by_push on outbox_pushes p"), "\(plan)")
    }
}
