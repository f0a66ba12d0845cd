import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// The profile-drop rules run their queries once per report: none may walk a whole table or index.
@Suite("SQLite drop queries search indexes")
struct SQLiteDropPlanTests {
    @Test("a user's latest match, and a pair's, are index searches, never scans of every matched drop")
    func latestMatchPlans() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("drop-plans-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SQLiteDatabase(path: directory + "/push.sqlite")
        for (sql, parameters) in [
            (SQLiteDropTransaction.latestBetweenSQL, [SQLiteValue.text("a"), .text("b"), .integer(0)]),
            (SQLiteDropTransaction.latestOfSQL, [.text("a"), .integer(0)]),
            (SQLiteDropTransaction.reportStateSQL, [.text("a"), .text("b"), .integer(0)]),
        ] {
            let plan = try await database.perform { db in
                try db.query("EXPLAIN QUERY PLAN " + sql, parameters) { $0.string(at: 3) }
            }
            #expect(plan.contains { $0.hasPrefix("SEARCH drops USING INDEX drops_matched_by_") }, "\(plan)")
            // No table or index walked whole (a scan of a subquery's own few rows is no search to make).
            #expect(!plan.contains { $0.hasPrefix("SCAN") && !$0.hasPrefix("SCAN (subquery") }, "\(plan)")
        }
    }
}
