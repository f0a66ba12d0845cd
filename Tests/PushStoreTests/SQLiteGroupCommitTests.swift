import Foundation
import PostgresDriver
import ProfileDrop
import PushSync
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Grouped writes (`SQLiteDatabase.writeGrouped`) share transactions without sharing their failures.
@Suite("SQLite group commit")
struct SQLiteGroupCommitTests {
    struct Refused: Error, Equatable {
        let value: Int
    }

    static func database() throws -> (SQLiteDatabase, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("group-commit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return (try SQLiteDatabase(path: directory + "/push.sqlite"), directory)
    }

    @Test("concurrent writes share commits; one that throws is undone alone; every answer comes after its commit")
    func concurrentWrites() async throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await database.perform { try $0.run("CREATE TABLE t (x INTEGER PRIMARY KEY)") }
        let count = 1_000
        let outcomes = await withTaskGroup(of: (Int, Result<Int, Refused>).self) { group in
            for value in 0..<count {
                group.addTask {
                    do {
                        let stored = try await database.writeGrouped { db -> Int in
                            _ = try db.run("INSERT INTO t (x) VALUES (?1)", [.integer(Int64(value))])
                            // Every tenth write fails after its insert: only its own insert is undone.
                            if value % 10 == 0 { throw Refused(value: value) }
                            return try db.query("SELECT count(*) FROM t WHERE x = ?1", [.integer(Int64(value))]) { $0.int(at: 0) }[0]
                        }
                        // Answered only once committed: a fresh read outside any transaction sees the row.
                        let visible = try await database.perform { db in
                            try db.query("SELECT count(*) FROM t WHERE x = ?1", [.integer(Int64(value))]) { $0.int(at: 0) }[0]
                        }
                        #expect(visible == 1)
                        return (value, .success(stored))
                    } catch let refused as Refused {
                        return (value, .failure(refused))
                    } catch {
                        Issue.record("unexpected \(error)")
                        return (value, .failure(Refused(value: -1)))
                    }
                }
            }
            return await group.reduce(into: [Int: Result<Int, Refused>]()) { $0[$1.0] = $1.1 }
        }
        for value in 0..<count {
            if value % 10 == 0 {
                #expect(outcomes[value] == .failure(Refused(value: value)))
            } else {
                #expect(outcomes[value] == .success(1))
            }
        }
        let rows = try await database.perform { try $0.query("SELECT x FROM t ORDER BY x") { $0.int(at: 0) } }
        #expect(rows == (0..<count).filter { $0 % 10 != 0 })
        #expect(try await database.perform { $0.inTransaction } == false)
        // A thousand writes that reach the actor together are not a thousand transactions.
        let commits = await database.groupCommits
        #expect(commits >= 1 && commits < count)
        // Each group that held a failing write ran again under savepoints; none ran more than twice.
        let replays = await database.groupReplays
        #expect(replays >= 1 && replays <= commits)
    }

    /// A grouped write joins the waiting group under its lock, not on the actor: while a group's commit holds
    /// the actor, the writes that arrive meanwhile are all waiting in the next group (a write that needed a job
    /// on the actor to join would still be queued behind the commit), and they share one commit after it.
    @Test("grouped writes join the next group while a commit holds the actor, with no job on it of their own")
    func writesJoinWithoutTheActor() async throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await database.perform { try $0.run("CREATE TABLE t (x INTEGER PRIMARY KEY)") }
        let others = 50
        let running = PThreadLock(false)
        let before = await database.groupCommits
        let first = Task {
            try await database.writeGrouped { db -> Int in
                _ = try db.run("INSERT INTO t (x) VALUES (-1)", [])
                running.withLock { $0 = true }
                // Holds the actor until the other writes wait in the next group, or a deadline passes.
                let deadline = ContinuousClock.now + .seconds(10)
                while database.writesWaiting < others, ContinuousClock.now < deadline { sched_yield() }
                return database.writesWaiting
            }
        }
        _ = try await poll("the first group's commit to hold the actor", within: .seconds(20), every: .milliseconds(5)) {
            running.withLock { $0 } ? true : nil
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in 0..<others {
                group.addTask { _ = try await database.writeGrouped { try $0.run("INSERT INTO t (x) VALUES (?1)", [.integer(Int64(value))]) } }
            }
            try await group.waitForAll()
        }
        #expect(try await first.value == others, "writes waiting in the next group while the commit held the actor")
        #expect(await database.groupCommits - before == 2)
        #expect(try await database.perform { try $0.query("SELECT count(*) FROM t") { $0.int(at: 0) } } == [others + 1])
    }

    @Test("a group whose writes all succeed commits in one run, with no replay")
    func groupWithoutFailures() async throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await database.perform { try $0.run("CREATE TABLE t (x INTEGER PRIMARY KEY, seen INTEGER NOT NULL)") }
        let count = 1_000
        let seen = try await withThrowingTaskGroup(of: Int.self) { group in
            for value in 0..<count {
                group.addTask {
                    try await database.writeGrouped { db -> Int in
                        // Each write sees every write grouped before it in the same transaction.
                        let before = try db.query("SELECT count(*) FROM t") { $0.int(at: 0) }[0]
                        _ = try db.run("INSERT INTO t (x, seen) VALUES (?1, ?2)", [.integer(Int64(value)), .integer(Int64(before))])
                        return before
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        // Every write saw a different number of rows before it: they ran one after another, once each.
        #expect(Set(seen) == Set(0..<count))
        let stored = try await database.perform { try $0.query("SELECT seen FROM t ORDER BY seen") { $0.int(at: 0) } }
        #expect(stored == Array(0..<count))
        #expect(await database.groupReplays == 0)
        #expect(await database.groupCommits < count)
    }

    @Test("drop reports and cancels that arrive together share group commits; a drop's current state reads do not group")
    func dropReportsGroup() async throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let drops = SQLiteDropRepository(database: database)
        let count = 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            for pair in 0..<count {
                group.addTask { _ = try await drops.report(dropReport("a\(pair)", "b\(pair)", id: "d\(pair)"), now: t0) }
            }
            try await group.waitForAll()
        }
        let afterReports = await database.groupCommits
        #expect(afterReports >= 1 && afterReports < count, "reports went through writeGrouped and shared commits")
        _ = try await drops.cancel(userID: "a0", now: at(1), window: .seconds(10))
        #expect(await database.groupCommits == afterReports + 1, "a cancel is a grouped write")
        _ = try await drops.current(userID: "a1", now: at(1), window: .seconds(10))
        _ = try await drops.expireDue(now: at(1))
        #expect(await database.groupCommits == afterReports + 1, "current and expireDue run in a write of their own")
        #expect(try await drops.pending().count == count - 1)
    }

    @Test("a write that throws after others in its group leaves them applied once, in order, and itself not at all")
    func replayKeepsOrder() async throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await database.perform { try $0.run("CREATE TABLE t (x INTEGER PRIMARY KEY, seen INTEGER NOT NULL)") }
        let results = await withTaskGroup(of: (Int, Int?).self) { group in
            for value in 0..<50 {
                group.addTask {
                    let seen = try? await database.writeGrouped { db -> Int in
                        let before = try db.query("SELECT count(*) FROM t") { $0.int(at: 0) }[0]
                        _ = try db.run("INSERT INTO t (x, seen) VALUES (?1, ?2)", [.integer(Int64(value)), .integer(Int64(before))])
                        if value % 7 == 3 { throw Refused(value: value) }
                        return before
                    }
                    return (value, seen)
                }
            }
            return await group.reduce(into: [Int: Int?]()) { $0[$1.0] = $1.1 }
        }
        let failed = results.filter { $0.value == nil }.map(\.key).sorted()
        #expect(failed == (0..<50).filter { $0 % 7 == 3 })
        let stored = try await database.perform { try $0.query("SELECT x, seen FROM t ORDER BY seen") { [$0.int(at: 0), $0.int(at: 1)] } }
        // Rows count up from 0 with no gaps: a write that threw left nothing, the others each one row.
        #expect(stored.map { $0[1] } == Array(0..<(50 - failed.count)))
        for row in stored { #expect(results[row[0]] == .some(row[1])) }
        #expect(await database.groupReplays >= 1)
    }

    @Test("a grouped write sees the writes grouped before it, in arrival order")
    func arrivalOrder() async throws {
        let (database, directory) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await database.perform { try $0.run("CREATE TABLE t (x INTEGER PRIMARY KEY)") }
        for value in 0..<5 {
            let seen = try await database.writeGrouped { db -> Int in
                _ = try db.run("INSERT INTO t (x) VALUES (?1)", [.integer(Int64(value))])
                return try db.query("SELECT count(*) FROM t") { $0.int(at: 0) }[0]
            }
            #expect(seen == value + 1)
        }
    }
}
