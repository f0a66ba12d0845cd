import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
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

    /// The opcodes of `sql` as SQLite compiled it (`EXPLAIN`): name, P1 and P2 of each.
    static func program(_ sql: String, _ database: SQLiteDatabase) async throws -> [(name: String, p1: Int, p2: Int)] {
        try await database.perform { db in
            try db.query("EXPLAIN " + sql) { (name: $0.string(at: 1), p1: $0.int(at: 2), p2: $0.int(at: 3)) }
        }
    }

    @Test("a report's read of both users' drops and the pair's matches builds no temporary b-tree")
    func reportStateBuildsNoTemporaryTree() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("drop-plans-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SQLiteDatabase(path: directory + "/push.sqlite")
        let sql = SQLiteDropTransaction.reportStateSQL
        let plan = try await database.perform { db in
            try db.query("EXPLAIN QUERY PLAN " + sql, [.text("a"), .text("b"), .integer(0)]) { $0.string(at: 3) }
        }
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        // An IN list searched through an index, or a sort, is a b-tree SQLite opens and frees on every run.
        let opened = try await Self.program(sql, database).filter { ["OpenEphemeral", "SorterOpen"].contains($0.name) }
        #expect(opened.isEmpty, "\(opened)")
    }

    @Test("no write of a report needs a statement journal for a foreign key")
    func writesNeedNoStatementJournal() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("drop-plans-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SQLiteDatabase(path: directory + "/push.sqlite")
        for sql in [
            SQLiteDropTransaction.insertPendingSQL, SQLiteDropTransaction.engageSQL, SQLiteDropTransaction.closeSQL,
            SQLiteDropTransaction.disengageSQL, SQLiteDropTransaction.insertRequestSQL,
        ] {
            // A statement that may write several rows checks an immediate foreign key by counting the rows
            // that break it (FkCounter, P1 0, P2 +1) and fails at its end, which SQLite can only undo through
            // a statement journal: a copy of each page the statement touches, taken before it writes. A
            // statement writing one row checks it at once; a delete's count (P2 -1) can only mend.
            let counted = try await Self.program(sql, database).filter { $0.name == "FkCounter" && $0.p1 == 0 && $0.p2 > 0 }
            #expect(counted.isEmpty, "\(sql)")
        }
    }

    @Test("no insert or update of a drop or a mate request builds a temporary b-tree to check its state")
    func writesCheckStatesInPlace() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("drop-plans-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SQLiteDatabase(path: directory + "/push.sqlite")
        for sql in [
            SQLiteDropTransaction.insertPendingSQL, SQLiteDropTransaction.closeSQL, SQLiteDropTransaction.insertRequestSQL,
            "UPDATE mate_requests SET state = ?2, answered_at = ?3 WHERE id = ?1",
        ] {
            // A CHECK of `state IN (…)` with three values or more opens a b-tree of them on every run.
            let opened = try await Self.program(sql, database).filter { $0.name == "OpenEphemeral" }
            #expect(opened.isEmpty, "\(sql): \(opened)")
        }
    }

    @Test("the overlap check of a match's pushes (a few runs) builds no temporary b-tree")
    func enqueueOverlapCheckInPlace() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("drop-plans-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SQLiteDatabase(path: directory + "/push.sqlite")
        for runs in 1...8 {
            let sql = SQLiteOutboxRepository.overlapSQL(chunkOf: runs)
            let opened = try await Self.program(sql, database).filter { ["OpenEphemeral", "SorterOpen"].contains($0.name) }
            #expect(opened.isEmpty, "\(runs) runs: \(opened)")
            let plan = try await database.perform { db in try db.query("EXPLAIN QUERY PLAN " + sql) { $0.string(at: 3) } }
            #expect(plan.filter { $0.hasPrefix("SEARCH outbox_pushes USING INDEX outbox_pushes_by_base") }.count == runs, "\(plan)")
        }
    }

    @Test("a report's read of both users with their devices: no temporary b-tree, each user's devices in order")
    func reportUsersRead() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("drop-plans-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SQLiteDatabase(path: directory + "/push.sqlite")
        for sql in [UsersWithDevicesSQL.pairActive, UsersWithDevicesSQL.pairAll] {
            let opened = try await Self.program(sql, database).filter { ["OpenEphemeral", "SorterOpen"].contains($0.name) }
            #expect(opened.isEmpty, "\(opened)")
        }
        let store = PushRepositories(database: database)
        let topic = "com.example.sniffmeet"
        for user in ["ana", "bob", "cy"] {
            _ = try await store.users.put(id: user, card: ProfileCard(name: user, dogName: "Rex"), now: t0)
        }
        // Registered out of order: the later registration first, and two at the same time (by token then).
        for (token, user, at) in [("0c", "ana", 2.0), ("0b", "ana", 1.0), ("0a", "ana", 1.0), ("0d", "bob", 1.0)] {
            _ = try await store.devices.register(
                token: DeviceToken(stringLiteral: String(repeating: "0", count: 62) + token), topic: topic, userID: user,
                environment: .development, now: t0.addingTimeInterval(at))
        }
        let tokens = { (found: [String: [DeviceRecord]], user: String) in found[user]?.map { String($0.token.hex.suffix(2)) } }
        let both = try await store.users.users(ids: ["ana", "bob"], withDevicesIn: store.devices, includeInvalidated: false)
        #expect(Set(both.users.keys) == ["ana", "bob"])
        #expect(tokens(both.devices, "ana") == ["0a", "0b", "0c"])
        #expect(tokens(both.devices, "bob") == ["0d"])
        let one = try await store.users.users(ids: ["ana", "ana"], withDevicesIn: store.devices, includeInvalidated: true)
        #expect(Set(one.users.keys) == ["ana"] && tokens(one.devices, "ana") == ["0a", "0b", "0c"])
        let deviceless = try await store.users.users(ids: ["cy", "nobody"], withDevicesIn: store.devices, includeInvalidated: false)
        #expect(Set(deviceless.users.keys) == ["cy"] && (deviceless.devices["cy"] ?? []).isEmpty)
    }
}
