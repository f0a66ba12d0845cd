import APNSCore
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
        #expect(steps == PostgresSchema.migrations.count - 3)
        // Two pushes, the second enqueued in two calls around a third push, as that version's enqueues left them:
        // a row each in `outbox_items`, one queued range over them.
        let ids = ["a0", "a1", "a2", "b0", "b1", "c0", "c1", "b2", "b3"]
        try await old.pool.withConnection { db in
            for (offset, id) in ids.enumerated() {
                try db.run(
                    """
                    INSERT INTO outbox_items (id, seq, push_id, token, topic, push_type, payload, environment, created_at)
                    VALUES ($1, $2, $3, $4, $5, 'alert', '\\x7b7d', 'development', $6)
                    """,
                    [
                        .text(id), .integer(Int64(offset + 1)), .text(String(id.prefix(1))), .text(token(offset).hex), .text(topic),
                        .integer(t0.storeMillis),
                    ])
            }
            try db.run(
                "INSERT INTO outbox_segments (lo, hi, due, remaining, updated_at) VALUES (1, 9, $1, 9, $1)", [.integer(t0.storeMillis)])
        }
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
