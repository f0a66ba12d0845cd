import Dispatch
import Foundation
import SQLiteDriver
import TestSupport
import Testing

@testable import PostgresDriver
@testable import PushStore
@testable import PushStoreSQL

/// `OutboxCompleteFailure` on errors the real databases raise: what a retry cannot fix is permanent, what
/// a wait can fix is transient.
@Suite("failed writes of outcomes: permanent or transient")
struct OutboxCompleteFailureTests {
    /// What `body` threw, classified (nil when it threw nothing).
    private static func kind(_ body: () throws -> Void) -> OutboxCompleteFailure? {
        do {
            try body()
            return nil
        } catch {
            return OutboxCompleteFailure(error)
        }
    }

    @Test("SQLite: a constraint, a syntax error, a missing table and a misused value are permanent; busy and full are transient")
    func sqlite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("complete-failure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        let db = try SQLiteConnection(path: path)
        try db.execute("PRAGMA journal_mode = WAL")
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL CHECK (v <> 'bad'))")
        try db.execute("INSERT INTO t VALUES (1, 'a')")
        #expect(Self.kind { try db.execute("INSERT INTO t VALUES (1, 'b')") } == .permanent)
        #expect(Self.kind { try db.execute("INSERT INTO t VALUES (2, 'bad')") } == .permanent)
        #expect(Self.kind { try db.execute("INSERT INTO t VALUES (3, NULL)") } == .permanent)
        #expect(Self.kind { try db.execute("INSERT INTO nowhere VALUES (1)") } == .permanent)
        #expect(Self.kind { try db.execute("INSERTT INTO t VALUES (4, 'c')") } == .permanent)
        #expect(Self.kind { try db.execute("SELECT * FROM t WHERE id = 1 LIMIT 'x'") } == .permanent)

        // Another connection holds the write lock: SQLITE_BUSY (no busy timeout on this one).
        let other = try SQLiteConnection(path: path)
        try other.execute("PRAGMA busy_timeout = 0")
        try db.execute("BEGIN IMMEDIATE")
        #expect(Self.kind { try other.execute("INSERT INTO t VALUES (5, 'd')") } == .transient)
        try db.execute("ROLLBACK")

        // The database may not grow past its pages: SQLITE_FULL.
        try db.execute("PRAGMA max_page_count = \((try db.query("PRAGMA page_count") { $0.int64(at: 0) }.first ?? 2) + 1)")
        let full = Self.kind {
            for n in 10..<10_000 { try db.execute("INSERT INTO t VALUES (\(n), '\(String(repeating: "x", count: 500))')") }
        }
        #expect(full == .transient)
        #expect(OutboxCompleteFailure(PushStoreError.storageFull("SQLITE_FULL")) == .transient)
    }

    @Test("PostgreSQL: class 23, 22 and 42 errors are permanent; a serialization failure, a lock timeout and a terminated session are transient")
    func postgres() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 2, clock: .caller)
        let other = try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller)
        try await database.pool.withConnection { db in
            try db.run("CREATE TABLE t (id integer PRIMARY KEY, v text NOT NULL CHECK (v <> 'bad'))")
            try db.run("INSERT INTO t VALUES (1, 'a')")
        }
        func kind(_ statements: String...) async -> OutboxCompleteFailure? {
            do {
                try await database.transaction { db in for sql in statements { try db.run(sql) } }
                return nil
            } catch {
                return OutboxCompleteFailure(error)
            }
        }
        #expect(await kind("INSERT INTO t VALUES (1, 'b')") == .permanent)  // 23505
        #expect(await kind("INSERT INTO t VALUES (2, 'bad')") == .permanent)  // 23514
        #expect(await kind("INSERT INTO t VALUES (3, NULL)") == .permanent)  // 23502
        #expect(await kind("INSERT INTO t VALUES (4, 'x' || (1 / 0)::text)") == .permanent)  // 22012
        #expect(await kind("INSERT INTO nowhere VALUES (1)") == .permanent)  // 42P01
        #expect(await kind("INSERTT INTO t VALUES (5, 'c')") == .permanent)  // 42601

        // The other session holds the row (55P03 under a lock timeout), then, under repeatable read, finds
        // it changed since its snapshot (40001).
        let (locked, lockTaken) = AsyncStream.makeStream(of: Void.self)
        let (snapshot, snapshotTaken) = AsyncStream.makeStream(of: Void.self)
        let letGo = DispatchSemaphore(value: 0)
        let holding = Task {
            try await other.pool.withConnection { db -> OutboxCompleteFailure? in
                try db.run("BEGIN ISOLATION LEVEL REPEATABLE READ")
                _ = try db.query("SELECT v FROM t WHERE id = 1 FOR UPDATE")
                lockTaken.yield()
                letGo.wait()
                try db.run("ROLLBACK")
                try db.run("BEGIN ISOLATION LEVEL REPEATABLE READ")
                _ = try db.query("SELECT v FROM t WHERE id = 1")
                snapshotTaken.yield()
                letGo.wait()
                defer { _ = try? db.run("ROLLBACK") }
                return Self.kind { try db.run("UPDATE t SET v = 'w' WHERE id = 1") }
            }
        }
        try await awaitEvent("the other session's row lock") { for await _ in locked { return } }
        #expect(await kind("SET LOCAL lock_timeout = '10ms'", "UPDATE t SET v = 'z' WHERE id = 1") == .transient)
        letGo.signal()
        try await awaitEvent("the other session's snapshot") { for await _ in snapshot { return } }
        #expect(await kind("UPDATE t SET v = 'y' WHERE id = 1") == nil)
        letGo.signal()
        #expect(try await holding.value == .transient)  // 40001

        // The server ends the session (57P01 admin shutdown): the store reports it unavailable.
        let pid = try await other.pool.withConnection { try $0.query("SELECT pg_backend_pid()")[0].int64(at: 0) }
        try await database.pool.withConnection { _ = try $0.query("SELECT pg_terminate_backend(\(pid))") }
        do {
            _ = try await other.transaction { db in try db.run("INSERT INTO t VALUES (6, 'e')") }
            Issue.record("a terminated session wrote")
        } catch {
            #expect(OutboxCompleteFailure(error) == .transient, "\(error)")
        }
    }
}
