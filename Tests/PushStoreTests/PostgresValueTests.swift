import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// The binary array parameters (`PostgresValue.textArray`, `integerArray`, `byteaArray`) as the server reads
/// them: every element back in order, NULLs where nil was, empty arrays empty.
@Suite("PostgreSQL array parameters")
struct PostgresValueTests {
    static let texts: [[String?]] = [[], [nil], ["walk", nil, "", "Rex 🐕 wants to meet you", String(repeating: "x", count: 5_000)]]
    static let integers: [[Int64?]] = [[], [nil], [Int64.min, nil, -1, 0, 1, Int64.max]]
    static let blobs: [[[UInt8]?]] = [[], [nil], [[0, 255], nil, [], Array(repeating: 7, count: 3_000)]]

    @Test func elementsComeBackInOrderWithTheirNulls() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "values", clock: .caller)
        let sql = "SELECT x FROM unnest($1) WITH ORDINALITY AS u(x, n) ORDER BY n"
        try await database.pool.withConnection { db in
            for values in Self.texts {
                let rows = try db.query(sql.replacingOccurrences(of: "$1", with: "$1::text[]"), [.textArray(values)])
                #expect(rows.map { $0.isNull(at: 0) ? nil : $0.string(at: 0) } == values)
            }
            for values in Self.integers {
                let rows = try db.query(sql.replacingOccurrences(of: "$1", with: "$1::bigint[]"), [.integerArray(values)])
                #expect(rows.map { $0.optionalInt64(at: 0) } == values)
            }
            for values in Self.blobs {
                let rows = try db.query(sql.replacingOccurrences(of: "$1", with: "$1::bytea[]"), [.byteaArray(values)])
                #expect(rows.map { $0.isNull(at: 0) ? nil : $0.bytes(at: 0) } == values)
            }
            // Zero elements is a zero-dimension array to the server: cardinality 0, not NULL.
            let empty = try db.query("SELECT cardinality($1::text[]), $1::text[] IS NULL", [.textArray([])])
                .map { ($0.int64(at: 0), $0.bool(at: 1)) }
            #expect(empty.count == 1 && empty[0].0 == 0 && empty[0].1 == false)
        }
        database.close()
    }
}
