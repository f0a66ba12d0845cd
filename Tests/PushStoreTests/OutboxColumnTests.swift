import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Outbox rows are read by named column (`OutboxPushColumn`), never by a bare index.
@Suite("Outbox columns by name")
struct OutboxColumnTests {
    @Test("each case's offset is the result column of the same name")
    func offsetsMatchNames() throws {
        let database = try SQLiteConnection(path: ":memory:")
        try database.migrate(SQLiteSchema.migrations.map(\.step))
        let select = try database.statement(SQLitePushSelect.all)
        #expect(select.columnCount == OutboxPushColumn.end)
        for column in OutboxPushColumn.allCases where ![.settledAt, .acceptedAttempts, .due].contains(column) {
            let name = try #require(column.expression.split(separator: ".").last)
            #expect(select.columnName(at: column.rawValue) == String(name), "\(column)")
        }
    }

    @Test("SQLite selects the push columns it always selected, from its tables")
    func selectLists() {
        #expect(
            SQLitePushSelect.columns
                == "p.lo, p.count, p.base, p.first_index, p.created_at, p.push_id, p.topic, p.push_type, p.priority, "
                + "p.expiration, p.collapse_id, p.apns_id, p.environment, p.channels, p.payload, p.targets, "
                + "coalesce(t.settled_at, p.created_at), coalesce(t.attempts, 1), NULL")
    }

    @Test("a later migration that adds columns to the outbox tables leaves every field where it was")
    func rowsReadAfterAColumnIsAdded() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("columns-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var item = outboxItem("x1", push: "p-x", token: 7, expiration: 1_900_000_000)
        item.collapseID = "walk"
        item.apnsID = APNSID(rawValue: "0a1b2c3d-0000-4000-8000-00000000000a")
        item.priority = .consideringDevicePower
        do {
            let outbox = try PushRepositories.sqlite(path: path).outbox
            try await outbox.enqueue([item])
            _ = try await outbox.claim(limit: 1, now: t0)
            try await outbox.complete([done("x1", .retry(status: 503, reason: "ServiceUnavailable"))], now: at(1))
        }
        // What a later schema step does (e.g. the lease columns of a shared outbox): new columns in the tables.
        let widen = SchemaMigration(
            name: "test-widen",
            sql: """
                ALTER TABLE outbox_pushes ADD COLUMN region TEXT NOT NULL DEFAULT 'eu';
                ALTER TABLE outbox_ranges ADD COLUMN owner TEXT;
                ALTER TABLE outbox_state ADD COLUMN owner TEXT;
                ALTER TABLE outbox_state ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 42;
                """)
        let database = try SQLiteDatabase(path: path, migrations: SQLiteSchema.migrations + [widen], recoverInFlight: true)
        #expect(try await database.schemaVersion() == SQLiteSchema.migrations.count + 1)
        let outbox = SQLiteOutboxRepository(database: database)
        let read = try #require(try await outbox.item(id: "x1"))
        #expect(read.id == "x1" && read.pushID == "p-x" && read.target == .device(token(7)) && read.topic == topic)
        #expect(read.pushType == .alert && read.priority == .consideringDevicePower && read.expiration == .at(epochSeconds: 1_900_000_000))
        #expect(read.collapseID == "walk" && read.apnsID == item.apnsID && read.payload == item.payload)
        #expect(read.environment == .development && read.state == .queued && read.attempts == 1)
        #expect(read.lastStatus == 503 && read.lastReason == .rejected(.serviceUnavailable) && read.apnsUniqueID == nil)
        #expect(read.createdAt == t0 && read.updatedAt == at(1) && read.nextAttemptAt > at(1))
        // Claim reads the same columns plus its own two after them.
        let claimed = try await outbox.claim(limit: 1, now: at(3_600))
        #expect(claimed.count == 1 && claimed.first?.attempts == 2 && claimed.first?.collapseID == "walk")
        #expect(try await outbox.complete([done("x1", .accepted(apnsUniqueID: "u-1"), attempt: 2)], now: at(3_601)) == ["x1": .accepted])
        #expect(try await outbox.item(id: "x1")?.apnsUniqueID == "u-1")
    }
}
