import Foundation
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// The SQLite file gives space back: pages a retention purge frees go back to the file system (new files
/// use incremental auto-vacuum; small older files are put in that mode when opened), and the WAL file is
/// emptied once writes stop.
@Suite("SQLite gives space back")
struct SQLiteSpaceTests {
    private static func path(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(OutboxID.make()).sqlite").path
    }

    private static func bytes(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    private static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// 2,000 pushes of 4 KB each, sent and accepted.
    private static func fill(_ outbox: SQLiteOutboxRepository) async throws {
        let payload = Array(#"{"aps":{"alert":""#.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 4_000) + Array(#""}}"#.utf8)
        for batch in 0..<10 {
            let items = (0..<200).map { n in
                var item = outboxItem("space-\(batch)-\(n)", push: "p-\(batch)-\(n)", token: n)
                item.payload = payload
                return item
            }
            try await outbox.enqueue(items)
            let claimed = try await outbox.claim(limit: 200, now: t0)
            #expect(claimed.count == 200)
            _ = try await outbox.complete(claimed.map { done($0.id, .accepted(apnsUniqueID: nil)) }, now: at(1))
        }
    }

    /// A new database at `path`, checkpointed after `idle` without changes, and its outbox.
    private static func open(_ path: String, idle: Duration) throws -> (SQLiteDatabase, SQLiteOutboxRepository) {
        let database = try SQLiteDatabase(
            path: path, migrations: SQLiteSchema.migrations, recoverInFlight: true, idleCheckpointDelay: idle)
        return (database, SQLiteOutboxRepository(database: database))
    }

    @Test func aRetentionPurgeGivesTheOutboxsPagesBack() async throws {
        let path = Self.path("purge-space")
        defer { Self.remove(path) }
        let (database, outbox) = try Self.open(path, idle: .seconds(3_600))
        try await Self.fill(outbox)
        #expect(try await database.perform { try $0.checkpointTruncating() })
        let full = Self.bytes(path)
        #expect(full > 6 * 1_024 * 1_024, "\(full) bytes for 8 MB of payloads")

        #expect(try await outbox.purge(olderThan: at(3_600), limit: 5_000) == 2_000)
        let (pages, free) = try await database.perform { try $0.pageCounts() }
        #expect(free == 0)
        #expect(try await database.perform { try $0.checkpointTruncating() })
        let purged = Self.bytes(path)
        #expect(purged < full / 8, "\(full) bytes before the purge, \(purged) after (\(pages) pages)")
        #expect(try await database.integrityCheck() == "ok")
    }

    @Test func theWriteAheadLogIsEmptiedOnceWritesStop() async throws {
        let path = Self.path("idle-wal")
        defer { Self.remove(path) }
        let (database, outbox) = try Self.open(path, idle: .milliseconds(100))
        try await outbox.enqueue((0..<500).map { outboxItem("idle-\($0)", token: $0) })
        #expect(Self.bytes(path + "-wal") > 0)
        _ = try await poll("the WAL file to be emptied after the writes stopped", within: .seconds(20), every: .milliseconds(20)) {
            Self.bytes(path + "-wal") == 0 ? true : nil
        }
        #expect(await database.idleCheckpoints == 1)
        // Reads change nothing: no further checkpoint; the next write starts the timer again.
        _ = try await outbox.item(id: "idle-1")
        #expect(await database.idleCheckpoint == nil)
        try await outbox.enqueue([outboxItem("idle-after", token: 1_000)])
        #expect(Self.bytes(path + "-wal") > 0)
        _ = try await poll("the WAL file to be emptied again", within: .seconds(20), every: .milliseconds(20)) {
            Self.bytes(path + "-wal") == 0 ? true : nil
        }
        #expect(await database.idleCheckpoints == 2)
    }

    /// A burst of writes (8 MB of payloads in transactions of about 200 KB, claimed and completed) keeps the
    /// WAL file, measured on disk after every transaction, within its limit and one transaction's pages: it is
    /// checkpointed and cut back while writes go on, not only once they stop (the idle timer is off here).
    @Test func theWriteAheadLogStaysBoundedThroughABurst() async throws {
        let path = Self.path("burst-wal")
        defer { Self.remove(path) }
        let (database, outbox) = try Self.open(path, idle: .seconds(3_600))
        let payload = Array(#"{"aps":{"alert":""#.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 4_000) + Array(#""}}"#.utf8)
        let bound = SQLiteConnection.walLimitBytes + 512 * 1_024
        var largest = 0
        for batch in 0..<40 {
            let items = (0..<50).map { n in
                var item = outboxItem("burst-\(batch)-\(n)", push: "p-\(batch)-\(n)", token: n)
                item.payload = payload
                return item
            }
            try await outbox.enqueue(items)
            largest = max(largest, Self.bytes(path + "-wal"))
            let claimed = try await outbox.claim(limit: 50, now: t0)
            #expect(claimed.count == 50)
            largest = max(largest, Self.bytes(path + "-wal"))
            _ = try await outbox.complete(claimed.map { done($0.id, .accepted(apnsUniqueID: nil)) }, now: at(1))
            largest = max(largest, Self.bytes(path + "-wal"))
        }
        #expect(Self.bytes(path) > 6 * 1_024 * 1_024, "the payloads reached the database file")
        #expect(largest > 0 && largest <= bound, "the WAL file reached \(largest) bytes (bound \(bound))")
        #expect(await database.idleCheckpoints == 0)
        #expect(try await database.integrityCheck() == "ok")
    }

    /// A file of the previous versions (no auto-vacuum) is rewritten in incremental mode when opened, keeping
    /// its rows; a file above the limit is left as it is.
    @Test func aSmallFileOfThePreviousVersionIsPutInIncrementalMode() async throws {
        let path = Self.path("old-mode")
        defer { Self.remove(path) }
        do {
            let db = try SQLiteConnection(path: path)
            try db.execute("PRAGMA auto_vacuum = NONE")
            try db.execute("VACUUM")
            try db.migrate(SQLiteSchema.migrations.map(\.step))
            #expect(try db.autoVacuumMode() == .none)
            #expect(try !SQLiteDatabase.giveBackFreePages(db, limit: 4_096))
            #expect(try db.autoVacuumMode() == .none)
        }
        let database = try SQLiteDatabase(path: path)
        #expect(try await database.perform { try $0.autoVacuumMode() } == .incremental)
        let outbox = SQLiteOutboxRepository(database: database)
        try await outbox.enqueue([outboxItem("kept")])
        #expect(try await outbox.item(id: "kept")?.state == .queued)
        #expect(try await database.integrityCheck() == "ok")
    }
}
