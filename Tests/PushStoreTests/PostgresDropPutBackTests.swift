import Dispatch
import Foundation
import PostgresDriver
import ProfileDrop
import PushStore
import Synchronization
import TestSupport
import Testing

@testable import PushStoreSQL

/// An operation put back for a lock another instance holds (`PostgresDropGroups`): the next group waits for
/// that lock instead of trying it again.
@Suite("PostgreSQL drop groups: put-backs")
struct PostgresDropPutBackTests {
    @Test("an operation put back for a lock held on another instance is put back once: the next group waits for that lock")
    func putBackOnceThenWait() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        // Two connections each: one runner an instance.
        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "b", clock: .database)
        let other = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "a", clock: .database)
        let drops = PushRepositories(database: database).drops
        try await DropReportCostTests.addUsers(pairs: 4, PushRepositories(database: database))
        // The other instance holds the lock of u0 and u1 (a group of its own, paused in its batch).
        let elsewhere = PostgresDropGroupTests.Holder(other, users: ["u0", "u1"])
        try await elsewhere.waitStarted()
        // Here u1's report toward u0 and y's operation queue behind a holding group, to run in one group:
        // u1's report is put back (its lock held elsewhere); y's body, run in that group, waits until z's
        // report has queued, so that both wait when that group ends: u1's report at the head of the queue.
        let holder = PostgresDropGroupTests.Holder(database, users: ["h0", "h1"])
        try await holder.waitStarted()
        let before = database.dropStatistics
        let contended = Task { try await drops.report(dropReport("u1", "u0", id: "d-u1"), now: Date()).0 }
        _ = try await poll("u1's report queued") { database.dropGroups.waitingCount == 1 ? true : nil }
        let y = PostgresDropGroupTests.Holder(database, users: ["u4", "u5"])
        _ = try await poll("y queued") { database.dropGroups.waitingCount == 2 ? true : nil }
        holder.release.signal()
        try await holder.task.value
        try await y.waitStarted()
        let z = Task { try await drops.report(dropReport("u2", "u3", id: "d-u2"), now: Date()).0 }
        _ = try await poll("z's report queued") { database.dropGroups.waitingCount == 1 ? true : nil }
        y.release.signal()
        try await y.task.value
        // The next group (u1's report alone: z's waits for the next runner) waits for u0 and u1's lock, no
        // other advisory lock being waited for meanwhile; tried again, u1's report would be put back again.
        _ = try await poll("a group waits for u0 and u1's lock") {
            try await other.pool.withConnection { db in
                try db.query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")[0].int64(at: 0)
            } == 1 ? true : nil
        }
        elsewhere.release.signal()
        try await elsewhere.task.value
        guard case .pending(let drop) = try await contended.value, case .pending = try await z.value else { throw PostgresDropGroupTests.Refused() }
        #expect(drop.id == "d-u1")
        let after = database.dropStatistics
        #expect(after.putBacks - before.putBacks == 1, "u1's report, put back once")
        #expect(after.operations - before.operations == 4, "the holder's, u1's, y's and z's")
    }
}
