import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Statements sent together in one round trip (a transaction's BEGIN with its first statement, a last
/// statement with the COMMIT) and array parameters in binary form.
@Suite("PostgreSQL pipelined statements and binary arrays")
struct PostgresPipelineTests {
    private func database() async throws -> PostgresDatabase {
        let database = try await PostgresDatabase.open(url: try await PostgresTestCluster.shared().createDatabase(), poolSize: 1, clock: .caller)
        try await database.pool.withConnection { try $0.execute("CREATE TABLE t (x integer PRIMARY KEY)") }
        return database
    }

    private func rows(_ database: PostgresDatabase) async throws -> [Int] {
        try await database.pool.withConnection { db in try db.query("SELECT x FROM t ORDER BY x").map { $0.int(at: 0) } }
    }

    @Test func aTransactionStartsWithItsFirstStatementAndItsSettingsApplyToIt() async throws {
        let database = try await database()
        let (inside, setting) = try await database.pool.transaction { db in
            db.executeWithNext("SET LOCAL application_name = 'pipelined'")
            let setting = try db.query("SELECT current_setting('application_name')")[0].string(at: 0)
            try db.run("INSERT INTO t VALUES (1)")
            return (db.inTransaction, setting)
        }
        #expect(inside && setting == "pipelined")
        #expect(try await rows(database) == [1])
        // The setting ended with the transaction; a block that runs nothing opens none.
        try await database.pool.withConnection { db in
            #expect(try db.query("SELECT current_setting('application_name')")[0].string(at: 0) == "push-server")
            try db.transaction { db in db.executeWithNext("SET LOCAL application_name = 'unused'") }
            #expect(!db.inTransaction)
            #expect(try db.query("SELECT current_setting('application_name')")[0].string(at: 0) == "push-server")
        }
    }

    @Test func aLastStatementCommitsInTheSameRoundTripOrNothingIsCommitted() async throws {
        let database = try await database()
        try await database.pool.transaction { db in
            try db.run("INSERT INTO t VALUES (1)")
            try db.query("INSERT INTO t VALUES (2)", committing: true)
            #expect(!db.inTransaction)
        }
        #expect(try await rows(database) == [1, 2])
        // A failing last statement commits nothing of the block (its error is the statement's own).
        await #expect {
            try await database.pool.transaction { db in
                try db.run("INSERT INTO t VALUES (3)")
                try db.query("INSERT INTO t VALUES (1)", committing: true)
            }
        } throws: { error in
            (error as? PostgresError)?.sqlState == "23505"
        }
        // A failing setting sent before a statement is reported, and the statement does not run.
        await #expect {
            try await database.pool.transaction { db in
                db.executeWithNext("SET LOCAL no_such_setting_at_all = 1")
                try db.run("INSERT INTO t VALUES (4)")
            }
        } throws: { error in
            (error as? PostgresError)?.sqlState == "42704"
        }
        #expect(try await rows(database) == [1, 2])
        try await database.ping()
        #expect(try await database.pool.withConnection { $0.inTransaction } == false)
    }

    @Test func arraysTravelInBinaryWithNullsQuotesAndEmptyOnes() async throws {
        let database = try await database()
        let texts: [String?] = ["plain", "", nil, #"quo"te"#, #"back\slash"#, "{braces},comma", "ünïcødé 🐶", "NULL"]
        let integers: [Int64?] = [0, -1, nil, Int64.max, Int64.min, 42]
        let blobs: [[UInt8]?] = [[], [0, 1, 255], nil, Array("\\x00".utf8)]
        let back = try await database.pool.withConnection { db in
            let text = try db.query("SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS u(v, n) ORDER BY n", [.textArray(texts)])
                .map { $0.optionalString(at: 0) }
            let integer = try db.query("SELECT v FROM unnest($1::bigint[]) WITH ORDINALITY AS u(v, n) ORDER BY n", [.integerArray(integers)])
                .map { $0.optionalInt64(at: 0) }
            let blob = try db.query("SELECT v FROM unnest($1::bytea[]) WITH ORDINALITY AS u(v, n) ORDER BY n", [.byteaArray(blobs)])
                .map { $0.isNull(at: 0) ? nil : $0.bytes(at: 0) }
            let empty = try db.query("SELECT cardinality($1::text[]), cardinality($2::bigint[])", [.textArray([]), .integerArray([])])
            return (text, integer, blob, [empty[0].int(at: 0), empty[0].int(at: 1)])
        }
        #expect(back.0 == texts)
        #expect(back.1 == integers)
        #expect(back.2 == blobs)
        #expect(back.3 == [0, 0])
    }
}
