import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("Schema migrations")
struct SchemaMigrationTests {
    /// A database file left at schema version 1 (one `outbox` table) with rows in every interesting state,
    /// with the 4 KB pages files of that version were created with.
    static func makeVersion1Database(at path: String) throws {
        let db = try SQLiteConnection(path: path, pageSize: 4_096)
        #expect(try db.pageSizeInUse() == 4_096)
        try db.migrate(SQLiteSchema.migrations.prefix(1).map(\.step))
        #expect(try db.userVersion == 1)
        let insert = """
            INSERT INTO outbox (id, push_id, token, topic, push_type, priority, expiration, collapse_id, apns_id,
                payload, environment, state, attempts, next_attempt_at, last_status, last_reason, apns_unique_id,
                created_at, updated_at)
            VALUES (?1, ?2, ?3, ?4, 'alert', ?5, ?6, ?7, ?8, ?9, 'development', ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
            """
        let t = t0.storeMillis
        let rows: [[SQLiteValue]] = [
            // id, push, token, topic, priority, expiration, collapse, apns-id, payload, state, attempts,
            // next attempt, status, reason, unique id, created, updated
            [
                .text("q1"), .text("p1"), .text(token(1).hex), .text(topic), .integer(10), .null, .null, .null,
                .blob(Array("one".utf8)), .text("queued"), .integer(0), .integer(t), .null, .null, .null,
                .integer(t), .integer(t),
            ],
            [
                .text("f1"), .text("p1"), .text(token(2).hex), .text(topic), .integer(5), .integer(0), .text("c"),
                .text("0a1b2c3d-0000-4000-8000-000000000001"), .blob(Array("two".utf8)), .text("in_flight"),
                .integer(1), .integer(t), .null, .null, .null, .integer(t + 1), .integer(t + 2),
            ],
            [
                .text("a1"), .text("p2"), .text(token(3).hex), .text(topic), .null, .integer(1_900_000_000), .null, .null,
                .blob(Array("three".utf8)), .text("accepted"), .integer(1), .integer(t), .integer(200), .null,
                .text("u-9"), .integer(t + 3), .integer(t + 4),
            ],
            [
                .text("r1"), .text("p1"), .text(token(4).hex), .text(topic), .integer(10), .null, .null, .null,
                .blob(Array("four".utf8)), .text("queued"), .integer(2), .integer(t + 5_000), .integer(503),
                .text("ServiceUnavailable"), .null, .integer(t + 5), .integer(t + 6),
            ],
        ]
        for row in rows { try db.run(insert, row) }
    }

    @Test func version1OutboxRowsSurviveTheStateSplit() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("migrate-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        try Self.makeVersion1Database(at: path)

        let database = try SQLiteDatabase(path: path)
        let store = SQLiteOutboxRepository(database: database)
        #expect(try await database.schemaVersion() == SQLiteSchema.migrations.count)
        // An existing file keeps its pages, even when a connection asking for larger ones opens it.
        #expect(try SQLiteConnection(path: path).pageSizeInUse() == 4_096)
        #expect(try await database.integrityCheck() == "ok")
        #expect(database.recoveredAtOpen == 1)  // "f1" was left in flight
        #expect(try await database.rowCount("outbox") == 4)

        // Enqueue order (the old rowid) is kept.
        let p1 = try await store.items(pushID: "p1")
        #expect(p1.map(\.id) == ["q1", "f1", "r1"])
        let t = t0.storeMillis
        let f1 = try #require(p1.dropFirst().first)
        #expect(f1.target == .device(token(2)) && f1.priority == 5 && f1.expiration == .immediately && f1.collapseID == "c")
        #expect(f1.apnsID?.rawValue == "0a1b2c3d-0000-4000-8000-000000000001" && f1.payload == Array("two".utf8))
        #expect(f1.state == .queued && f1.attempts == 1)
        #expect(f1.createdAt == Date(storeMillis: t + 1) && f1.updatedAt == Date(storeMillis: t + 2))
        let a1 = try #require(try await store.item(id: "a1"))
        #expect(a1.state == .accepted && a1.lastStatus == 200 && a1.apnsUniqueID == "u-9")
        #expect(a1.priority == nil && a1.expiration == .at(epochSeconds: 1_900_000_000) && a1.pushID == "p2")
        let r1 = try #require(try await store.item(id: "r1"))
        #expect(r1.attempts == 2 && r1.lastStatus == 503 && r1.lastReason == .rejected(.serviceUnavailable))
        #expect(r1.nextAttemptAt == Date(storeMillis: t + 5_000))
        let counts = try await store.counts()
        #expect(counts[.queued] == 3 && counts[.accepted] == 1)

        // The migrated rows keep working: "f1" (expiration 0, tried once) expires, "r1" is not due yet.
        let claimed = try await store.claim(limit: 10, now: t0)
        #expect(claimed.map(\.id) == ["q1"])
        #expect(try await store.item(id: "f1")?.state == .expired)
        #expect(try await store.complete([done("q1", .accepted(apnsUniqueID: nil))], now: t0) == ["q1": .accepted])
        // New rows continue after the migrated ones.
        try await store.enqueue([outboxItem("n1", push: "p1")])
        #expect(try await store.items(pushID: "p1").map(\.id) == ["q1", "f1", "r1", "n1"])
        await #expect(throws: PushStoreError.duplicateID("a1")) { try await store.enqueue([outboxItem("a1")]) }
    }

    @Test func newDatabaseFilesUseLargePages() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("pages-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = try SQLiteDatabase(path: path)
        #expect(try await database.schemaVersion() == SQLiteSchema.migrations.count)
        let db = try SQLiteConnection(path: path, pageSize: 4_096)  // too late for this file: it has tables
        #expect(try db.pageSizeInUse() == SQLiteConnection.newDatabasePageSize)
        let checkpointPages = try db.query("PRAGMA wal_autocheckpoint") { $0.int(at: 0) }
        #expect(checkpointPages == [SQLiteConnection.walLimitBytes / SQLiteConnection.newDatabasePageSize])
    }

    /// The WAL is checkpointed every `SQLiteConnection.walLimitBytes` and its file cut back to that size
    /// afterwards: 24 MB written in 1 MB transactions leave a WAL file of that size and one transaction's pages,
    /// not 24 MB (the database's size on disk stays near what it holds).
    @Test func theWriteAheadLogStaysNearItsLimit() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("wal-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try SQLiteConnection(path: path)
        try db.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        let megabyte = [UInt8](repeating: 0x5a, count: 1_024 * 1_024)
        for _ in 0..<24 {
            _ = try db.transaction { try db.run("INSERT INTO blobs (data) VALUES (?1)", [.blob(megabyte)]) }
        }
        let walBytes = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        #expect(
            walBytes <= SQLiteConnection.walLimitBytes + 2 * 1_024 * 1_024, "WAL file of \(walBytes) bytes after 24 MB written")
    }
}

@Suite("Schema migrations: drop engagements")
struct DropEngagementMigrationTests {
    /// A file of the previous version (before `drop-engagements`) with a pending drop, a drop caught
    /// mid-match (pending, mate requests stored), a matched one, and a later pending drop sharing a user
    /// with the first opens with the pending drops engaging their users (the shared one held by the older
    /// drop) and the interrupted one matched.
    @Test func previousVersionDropsKeepTheirMeaning() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("migrate-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let previous = SQLiteSchema.migrations.prefix { $0.name != "drop-engagements" }
        #expect(previous.count == SQLiteSchema.migrations.firstIndex { $0.name == "drop-engagements" })
        do {
            let db = try SQLiteConnection(path: path)
            try db.migrate(previous.map(\.step))
            let t = t0.storeMillis
            for (id, initiator, peer, state) in [("p", "ana", "bob", "pending"), ("m", "cy", "dee", "pending"), ("x", "eve", "fay", "matched")] {
                try db.run(
                    "INSERT INTO drops (id, initiator_id, peer_id, state, created_at, expires_at, matched_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    [
                        .text(id), .text(initiator), .text(peer), .text(state), .integer(t), .integer(t + 10_000),
                        state == "matched" ? .integer(t + 1) : .null,
                    ])
            }
            try db.run(
                "INSERT INTO mate_requests (id, drop_id, sender_id, recipient_id, state, created_at) VALUES ('m.initiator', 'm', 'dee', 'cy', 'pending', ?1)",
                [.integer(t + 2)])
            try db.run(
                "INSERT INTO drops (id, initiator_id, peer_id, state, created_at, expires_at) VALUES ('q', 'gus', 'ana', 'pending', ?1, ?2)",
                [.integer(t + 5), .integer(t + 10_000)])
        }
        let store = try PushRepositories.sqlite(path: path)
        #expect(try await store.drops.pending().map(\.id) == ["p", "q"])
        #expect(try await store.drops.report(dropReport("zed", "gus"), now: at(1)).0 == .busy)
        let interrupted = try await store.drops.drop(id: "m")
        #expect(interrupted?.state == .matched && interrupted?.matchedAt?.storeMillis == t0.storeMillis + 2)
        #expect(try await store.drops.report(dropReport("zed", "bob"), now: at(1)).0 == .busy)
        guard case .matched(let drop, _) = try await store.drops.report(dropReport("bob", "ana"), now: at(1)).0 else {
            Issue.record("expected the migrated pending drop to match")
            return
        }
        #expect(drop.id == "p")
    }

    /// A file of the version before `drop-states-checked`, with drops, mate requests and engagements in
    /// place, keeps every row and index through the rebuild of the three tables, foreign keys sound, and the
    /// checks still refuse a state that is none of the listed ones.
    @Test func dropStateChecksRebuildKeepsEveryRow() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("migrate-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let previous = Array(SQLiteSchema.migrations.prefix { $0.name != "drop-states-checked" })
        #expect(SQLiteSchema.migrations[previous.count].name == "drop-states-checked")
        let t = t0.storeMillis
        let tables = ["drops", "mate_requests", "drop_engagements"]
        let dump = { (db: SQLiteConnection) throws -> [String] in
            try tables.flatMap { table in
                try db.query("SELECT * FROM \(table) ORDER BY 1") { row in
                    table + ": " + (0..<row.columnCount).map { row.isNull(at: $0) ? "NULL" : row.string(at: $0) }.joined(separator: "|")
                }
            }
        }
        let indexes = { (db: SQLiteConnection) throws -> [String] in
            try db.query(
                "SELECT tbl_name || ' ' || name || ' ' || sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
            ) { $0.string(at: 0) }
        }
        var before: [String] = []
        var indexesBefore: [String] = []
        do {
            let db = try SQLiteConnection(path: path)
            try db.migrate(previous.map(\.step))
            for (id, initiator, peer, state) in [("p", "ana", "bob", "pending"), ("m", "cy", "dee", "matched"), ("c", "eve", "fay", "cancelled")] {
                try db.run(
                    "INSERT INTO drops (id, initiator_id, peer_id, state, created_at, expires_at, matched_at, closed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    [
                        .text(id), .text(initiator), .text(peer), .text(state), .integer(t), .integer(t + 10_000),
                        state == "matched" ? .integer(t + 1) : .null, state == "pending" ? .null : .integer(t + 1),
                    ])
            }
            try db.run("INSERT INTO drop_engagements (user_id, drop_id) VALUES ('ana', 'p'), ('bob', 'p')")
            try db.run(
                "INSERT INTO mate_requests (id, drop_id, sender_id, recipient_id, state, created_at, answered_at) VALUES ('m.a', 'm', 'dee', 'cy', 'accepted', ?1, ?2), ('m.b', 'm', 'cy', 'dee', 'pending', ?1, NULL)",
                [.integer(t + 1), .integer(t + 2)])
            before = try dump(db)
            indexesBefore = try indexes(db)
            #expect(before.count == 7)
        }
        let db = try SQLiteConnection(path: path)
        try db.migrate(SQLiteSchema.migrations.map(\.step))
        #expect(try db.userVersion == SQLiteSchema.migrations.count)
        #expect(try dump(db) == before)
        #expect(try indexes(db) == indexesBefore)
        #expect(try db.query("PRAGMA foreign_key_check") { $0.string(at: 0) }.isEmpty)
        #expect(try db.integrityCheck() == "ok")
        let schema = try db.query("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name IN ('drops', 'mate_requests', 'drop_engagements')") {
            $0.string(at: 0)
        }
        #expect(schema.count == 3 && !schema.contains { $0.contains("rebuilt") || $0.contains(" IN (") }, "\(schema)")
        #expect(throws: (any Error).self) {
            try db.run("UPDATE drops SET state = 'lost' WHERE id = 'p'")
        }
        #expect(throws: (any Error).self) {
            try db.run("UPDATE mate_requests SET state = 'lost' WHERE id = 'm.b'")
        }
        #expect(throws: (any Error).self) {
            try db.run(
                """
                INSERT INTO mate_requests (id, drop_id, sender_id, recipient_id, state, created_at)
                VALUES ('x', 'nope', 'a', 'b', 'pending', 0)
                """)
        }
    }
}
