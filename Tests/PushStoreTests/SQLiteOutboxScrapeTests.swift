import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// What every metrics scrape reads from SQLite (pending counts, depth, the oldest pending notification) visits
/// only the ranges of pending notifications and the outcome rows still pending, through the partial indexes
/// that hold those, never the final rows kept until retention.
@Suite("SQLite outbox scrapes")
struct SQLiteOutboxScrapeTests {
    @Test func scrapesReadOnlyThePendingRowsIndexes() async throws {
        let database = try SQLiteDatabase(path: ":memory:")
        let outbox = SQLiteOutboxRepository(database: database)
        try await outbox.enqueue((0..<10).map { outboxItem("p\($0)", token: $0, now: at(Double($0))) })
        let first = try await outbox.claim(limit: 6, now: at(20))
        try await outbox.complete(first.prefix(2).map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(21))
        for sql in [SQLiteOutboxRepository.pendingCountsSQL, SQLiteOutboxRepository.oldestPendingRowSQL] {
            let plan = try await database.perform { db in
                try db.query("EXPLAIN QUERY PLAN " + sql) { $0.string(at: 3) }
            }
            #expect(plan.contains { $0.contains("USING INDEX outbox_queue") }, "\(plan)")
            #expect(plan.contains { $0.contains("USING INDEX outbox_in_flight") }, "\(plan)")
            // The final rows are reached by key from the chosen one at most, never walked.
            #expect(!plan.contains { $0.contains("outbox_state") && !$0.contains("USING INDEX") }, "\(plan)")
        }
        #expect(try await outbox.pendingCounts() == [.queued: 4, .inFlight: 4])
        #expect(try await outbox.depth() == 8)
        #expect(try await outbox.oldestPendingEnqueuedAt() == at(2))
        try await outbox.complete(first.dropFirst(2).map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(22))
        #expect(try await outbox.oldestPendingEnqueuedAt() == at(6))
    }

    /// A file of the version before "outbox-in-flight" with a row in flight and one queued: both steps after
    /// it take in the row already in flight.
    @Test func previousVersionRowsInFlightAreCounted() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("scrape-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let previous = Array(SQLiteSchema.migrations.prefix { $0.name != "outbox-in-flight" })
        do {
            let old = try SQLiteConnection(path: path)
            try old.migrate(previous.map(\.step))
            try LegacyOutboxRow(seq: 1, id: "sent", token: 1, state: "in_flight", attempts: 1, createdAt: at(0)).insert(old)
            try LegacyOutboxRow(seq: 2, id: "waiting", token: 2, state: "queued", attempts: 0, createdAt: at(1)).insert(old)
        }
        let database = try SQLiteDatabase(path: path, migrations: SQLiteSchema.migrations, recoverInFlight: false)
        let outbox = SQLiteOutboxRepository(database: database)
        #expect(try await database.schemaVersion() == SQLiteSchema.migrations.count)
        #expect(try await outbox.pendingCounts() == [.queued: 1, .inFlight: 1])
        #expect(try await outbox.oldestPendingEnqueuedAt() == at(0))
    }

    @Test func webhookScrapesReadOnlyThePendingRowsIndex() async throws {
        let database = try SQLiteDatabase(path: ":memory:")
        let plan = try await database.perform { db in
            try db.query("EXPLAIN QUERY PLAN " + SQLiteWebhookRepository.pendingCountsSQL) { $0.string(at: 3) }
        }
        #expect(plan.contains { $0.contains("USING INDEX webhook_events_due") }, "\(plan)")
        #expect(!plan.contains { $0.contains("webhook_events") && !$0.contains("USING INDEX") }, "\(plan)")
    }
}
