import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Grouped reads (`SQLiteDatabase.readGrouped`) share read transactions without sharing their failures.
@Suite("SQLite grouped reads")
struct SQLiteGroupedReadTests {
    struct Refused: Error, Equatable {
        let value: Int
    }

    @Test("concurrent reads share transactions, each answers with its own rows, and one that throws fails alone")
    func concurrentReads() async throws {
        let (database, directory) = try SQLiteGroupCommitTests.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await database.write { db in
            try db.run("CREATE TABLE t (x INTEGER PRIMARY KEY, square INTEGER NOT NULL)")
            for x in 0..<1_000 { try db.run("INSERT INTO t (x, square) VALUES (?1, ?2)", [.integer(Int64(x)), .integer(Int64(x * x))]) }
        }
        let count = 1_000
        let outcomes = await withTaskGroup(of: (Int, Result<Int, Refused>).self) { group in
            for value in 0..<count {
                group.addTask {
                    do {
                        let square = try await database.readGrouped { db -> Int in
                            // Every tenth read fails: a bad statement in one, a thrown error in the next.
                            if value % 20 == 0 { _ = try db.query("SELECT nothing FROM missing") { $0.int(at: 0) } }
                            if value % 20 == 10 { throw Refused(value: value) }
                            return try db.query("SELECT square FROM t WHERE x = ?1", [.integer(Int64(value))]) { $0.int(at: 0) }[0]
                        }
                        return (value, .success(square))
                    } catch let refused as Refused {
                        return (value, .failure(refused))
                    } catch {
                        return (value, .failure(Refused(value: -value)))
                    }
                }
            }
            return await group.reduce(into: [Int: Result<Int, Refused>]()) { $0[$1.0] = $1.1 }
        }
        for value in 0..<count {
            switch value % 20 {
            case 0: #expect(outcomes[value] == .failure(Refused(value: -value)))
            case 10: #expect(outcomes[value] == .failure(Refused(value: value)))
            default: #expect(outcomes[value] == .success(value * value))
            }
        }
        // A thousand reads that reach the actor together are not a thousand transactions, and none is left open.
        let groups = await database.readGroups
        #expect(groups >= 1 && groups < count)
        #expect(try await database.perform { $0.inTransaction } == false)
    }

    @Test("a grouped read sees every write committed before it was asked, and reads and writes interleave")
    func readsSeeCommittedWrites() async throws {
        let (database, directory) = try SQLiteGroupCommitTests.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await database.perform { try $0.run("CREATE TABLE t (x INTEGER PRIMARY KEY)") }
        let seen = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for value in 0..<200 {
                group.addTask {
                    _ = try await database.writeGrouped { try $0.run("INSERT INTO t (x) VALUES (?1)", [.integer(Int64(value))]) }
                    let found = try await database.readGrouped { db in
                        try db.query("SELECT count(*) FROM t WHERE x = ?1", [.integer(Int64(value))]) { $0.int(at: 0) }[0]
                    }
                    let total = try await database.readGrouped { db in try db.query("SELECT count(*) FROM t") { $0.int(at: 0) }[0] }
                    return (found, total)
                }
            }
            return try await group.reduce(into: [(Int, Int)]()) { $0.append($1) }
        }
        #expect(seen.count == 200)
        for (found, total) in seen {
            #expect(found == 1)
            #expect((1...200).contains(total))
        }
        #expect(try await database.perform { $0.inTransaction } == false)
        // Reads after the writes: one group answers the last, alone.
        let before = await database.readGroups
        #expect(try await database.readGrouped { db in try db.query("SELECT count(*) FROM t") { $0.int(at: 0) }[0] } == 200)
        #expect(await database.readGroups == before + 1)
    }
}
