import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("SQLiteConnection")
struct SQLiteConnectionTests {
    @Test func typedValuesRoundTrip() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        let values: [SQLiteValue] = [.integer(Int64.min), .real(2.5), .text("héllo\u{0}x"), .blob([0, 1, 255]), .null]
        try db.run("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)", values)
        try db.run("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)", [.integer(0), .real(0), .text(""), .blob([]), .text("x")])
        let rows = try db.query("SELECT i, r, s, b, n FROM t ORDER BY rowid") { row in (0..<5).map { row.value(at: $0) } }
        #expect(rows[0] == values)
        #expect(rows[1] == [.integer(0), .real(0), .text(""), .blob([]), .text("x")])
    }

    @Test func statementsAreCachedBySQLText() throws {
        let db = try SQLiteConnection(path: ":memory:")
        let before = db.cachedStatementCount
        for n in 0..<10 { _ = try db.query("SELECT ?1", [.integer(Int64(n))]) { $0.int(at: 0) } }
        #expect(db.cachedStatementCount == before + 1)
        #expect(try db.statement("SELECT ?1") === db.statement("SELECT ?1"))
    }

    /// The cache's key hashes a statement's length and its first and last bytes only, so a long statement
    /// costs no more to look up than a short one; statements that differ only in between share a hash and
    /// are still two statements, each answering its own.
    @Test func longStatementsAreHashedBySamples() throws {
        let padding = String(repeating: " ", count: 2 * SQLiteConnection.StatementKey.sampled)
        let one = "SELECT 1 AS v" + padding + "UNION ALL SELECT 2" + padding + "LIMIT 1"
        let two = "SELECT 1 AS v" + padding + "UNION ALL SELECT 3" + padding + "LIMIT 1"
        let (a, b) = (SQLiteConnection.StatementKey(sql: one), SQLiteConnection.StatementKey(sql: two))
        #expect(a.hashValue == b.hashValue)
        #expect(a != b)
        #expect(SQLiteConnection.StatementKey(sql: "SELECT 1").hashValue != SQLiteConnection.StatementKey(sql: "SELECT 2").hashValue)
        let db = try SQLiteConnection(path: ":memory:")
        let before = db.cachedStatementCount
        #expect(try db.query(one + " OFFSET 1") { $0.int(at: 0) } == [2])
        #expect(try db.query(two + " OFFSET 1") { $0.int(at: 0) } == [3])
        #expect(db.cachedStatementCount == before + 2)
        #expect(try db.statement(one) !== db.statement(two))
    }

    @Test func errorsNameTheFunctionAndCarrySQLiteMessage() throws {
        let db = try SQLiteConnection(path: ":memory:")
        #expect {
            _ = try db.statement("SELEKT 1")
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.function == "sqlite3_prepare_v3" && error.code == 1 && error.message.contains("syntax error")
        }
        try db.execute("CREATE TABLE u (id INTEGER PRIMARY KEY)")
        try db.run("INSERT INTO u VALUES (1)")
        #expect {
            try db.run("INSERT INTO u VALUES (1)")
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.function == "sqlite3_step" && error.isConstraintViolation && error.message.contains("UNIQUE")
        }
        #expect(throws: SQLiteError.self) { _ = try SQLiteConnection(path: "/nonexistent-dir/x/y.sqlite") }
    }

    @Test func transactionRollsBackOnError() throws {
        struct Boom: Error {}
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER)")
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(!db.inTransaction)
        let sum = try db.transaction { () throws -> Int in
            try db.run("INSERT INTO t VALUES (2)")
            return try db.query("SELECT count(*) FROM t") { $0.int(at: 0) }[0]
        }
        #expect(sum == 1)
    }

    @Test func migrationsRunOnceInOrder() throws {
        let db = try SQLiteConnection(path: ":memory:")
        let steps = [
            (name: "one", sql: "CREATE TABLE a (x)"),
            (name: "two", sql: "ALTER TABLE a ADD COLUMN y"),
        ]
        try db.migrate(Array(steps.prefix(1)))
        #expect(try db.userVersion == 1)
        try db.migrate(steps)
        try db.migrate(steps)
        #expect(try db.userVersion == 2)
        try db.run("INSERT INTO a (x, y) VALUES (1, 2)")
        #expect(throws: SQLiteError.self) { try db.migrate(Array(steps.prefix(1))) }
    }

    @Test func storeOpensWithWALForeignKeysAndCurrentSchema() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("conn-\(OutboxID.make()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try SQLiteConnection(path: path)
        #expect(try db.query("PRAGMA journal_mode") { $0.string(at: 0) } == ["wal"])
        #expect(try db.query("PRAGMA foreign_keys") { $0.int(at: 0) } == [1])
        #expect(try db.query("PRAGMA synchronous") { $0.int(at: 0) } == [1])  // NORMAL
        let store = try SQLiteDatabase(path: path)
        #expect(try await store.schemaVersion() == SQLiteSchema.migrations.count)
        #expect(try await store.integrityCheck() == "ok")
    }

    @Test func outboxIDsAreLowercaseUUIDs() {
        let ids = (0..<100).map { _ in OutboxID.make() }
        #expect(Set(ids).count == 100)
        for id in ids {
            #expect(UUID(uuidString: id) != nil && id == id.lowercased())
            #expect(Array(id)[14] == "7")
        }
    }
}
