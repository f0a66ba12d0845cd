import Foundation
import PushSync
import SQLiteDriver
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// The SQLite store's blocking calls run on a thread of its own, never on one of the concurrency pool's.
@Suite("SQLite store thread")
struct SQLiteThreadTests {
    /// The name of the calling thread, as the kernel keeps it (`top -H` and `perf` show it).
    static func currentThreadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .newlines)
    }

    @Test("every way into the store runs its SQL on the store's own thread, also under many callers at once")
    func callsRunOnTheStoreThread() async throws {
        let (database, directory) = try SQLiteGroupCommitTests.database()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await database.write { try $0.run("CREATE TABLE t (x INTEGER PRIMARY KEY)") }
        let names = try await withThrowingTaskGroup(of: [String].self) { group in
            for value in 0..<200 {
                group.addTask {
                    let written = try await database.write { db in
                        try db.run("INSERT INTO t (x) VALUES (?1)", [.integer(Int64(value))])
                        return Self.currentThreadName()
                    }
                    let grouped = try await database.writeGrouped { db in
                        try db.run("INSERT INTO t (x) VALUES (?1)", [.integer(Int64(10_000 + value))])
                        return Self.currentThreadName()
                    }
                    let read = try await database.readGrouped { db in
                        _ = try db.query("SELECT count(*) FROM t") { $0.int(at: 0) }
                        return Self.currentThreadName()
                    }
                    let performed = try await database.perform { db in
                        _ = try db.query("SELECT x FROM t WHERE x = ?1", [.integer(Int64(value))]) { $0.int(at: 0) }
                        return Self.currentThreadName()
                    }
                    let dropped = try await database.withDropTransaction(locking: [], grouped: value % 2 == 0) { _ in
                        Self.currentThreadName()
                    }
                    return [written, grouped, read, performed, dropped]
                }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(names.count == 1_000)
        #expect(Set(names) == [SQLiteDatabase.threadName])
        // The callers themselves run elsewhere (the concurrency pool).
        #expect(Self.currentThreadName() != SQLiteDatabase.threadName)
        #expect(try await database.perform { try $0.query("SELECT count(*) FROM t") { $0.int(at: 0) }[0] } == 400)
    }

    @Test("the store's connection, used off the store's thread, stops the process")
    func connectionOffThreadTraps() async {
        await #expect(processExitsWith: .failure) {
            let thread = SerialThread(name: "sqlite-trap")
            let connection = try SQLiteConnection(path: ":memory:")
            connection.confine(to: thread)
            try connection.execute("SELECT 1")
        }
    }

    @Test("an unconfined connection runs anywhere (tools and tests open their own)")
    func unconfinedConnectionRunsHere() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("SELECT 1")
        #expect(connection.inTransaction == false)
    }
}
