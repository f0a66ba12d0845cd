import Foundation
import PostgresDriver
import ProfileDrop
import PushStoreBenchmark
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Two repository sets on one database stand for two push-server instances.
@Suite("PostgreSQL outbox shared by instances")
struct PostgresOutboxInstancesTests {
    /// Two instances ("a" and "b") on one fresh database, with leases of `lease` seconds.
    static func instances(lease: Duration = .seconds(60)) async throws -> (PushRepositories, PushRepositories) {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let a = try await PushRepositories.postgres(url: url, poolSize: 3, instanceID: "a", lease: lease, clock: .caller)
        let b = try await PushRepositories.postgres(url: url, poolSize: 3, instanceID: "b", lease: lease, clock: .caller)
        return (a, b)
    }

    @Test func concurrentClaimsNeverHandOneRowToBoth() async throws {
        let (a, b) = try await Self.instances()
        let ids = (0..<600).map { String(format: "row-%04d", $0) }
        for chunk in stride(from: 0, to: ids.count, by: 200) {
            try await a.outbox.enqueue(ids[chunk..<chunk + 200].map { outboxItem($0, token: 1) })
        }
        // Three claimers per instance take small batches at once until the queue is empty.
        let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
            for outbox in [a.outbox, a.outbox, a.outbox, b.outbox, b.outbox, b.outbox] {
                group.addTask {
                    var mine: [String] = []
                    while true {
                        let claim = try await outbox.claim(limit: 7, now: t0)
                        if claim.isEmpty { return mine }
                        mine += claim.map(\.id)
                    }
                }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        let all = claimed.flatMap { $0 }
        #expect(all.count == ids.count)
        #expect(Set(all) == Set(ids))
        #expect(try await b.outbox.counts()[.inFlight] == ids.count)
        // Every row is in flight once, attempt 1, and each instance's completions land.
        let items = try await a.outbox.items(pushID: "push-1")
        #expect(items.allSatisfy { $0.attempts == 1 })
    }

    @Test func aLeaseIsReclaimedByAnotherInstanceOnlyAfterItEnds() async throws {
        let (a, b) = try await Self.instances(lease: .seconds(10))
        try await a.outbox.enqueue([outboxItem("x"), outboxItem("y")])
        let first = try await a.outbox.claim(limit: 5, now: t0)
        #expect(first.map(\.id) == ["x", "y"] && first.map(\.attempts) == [1, 1])
        // While a's lease runs, b gets nothing (even a millisecond before it ends).
        #expect(try await b.outbox.claim(limit: 5, now: at(5)).isEmpty)
        #expect(try await b.outbox.claim(limit: 5, now: at(9.999)).isEmpty)
        // After it, b takes the rows over, counting an attempt.
        let second = try await b.outbox.claim(limit: 5, now: at(10.001))
        #expect(Set(second.map(\.id)) == ["x", "y"] && second.map(\.attempts) == [2, 2])
        // a's late outcomes are stale and change nothing; b's count.
        let late = try await a.outbox.complete(first.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(11))
        #expect(late.isEmpty)
        #expect(try await a.outbox.item(id: "x")?.state == .inFlight)
        let current = try await b.outbox.complete(
            second.map { OutboxCompletion($0, .accepted(apnsUniqueID: "u-\($0.id)")) }, now: at(12))
        #expect(current == ["x": .accepted, "y": .accepted])
        #expect(try await a.outbox.item(id: "y")?.apnsUniqueID == "u-y")
        // a's restart-style recovery touches only its own rows: it holds none now.
        #expect(try await a.outbox.recoverInFlight() == 0)
    }

    @Test func aRenewedLeaseKeepsTheRowFromOtherInstancesUntilTheRenewalEnds() async throws {
        let (a, b) = try await Self.instances(lease: .seconds(10))
        #expect(a.outbox.leaseRenewalInterval == .seconds(10) / 3)
        try await a.outbox.enqueue([outboxItem("x"), outboxItem("y"), outboxItem("z")])
        let first = try await a.outbox.claim(limit: 5, now: t0)
        let holds = first.map { OutboxHold(id: $0.id, attempt: $0.attempts) }
        // a, still sending, renews at 8 s: the leases now run to 18 s.
        #expect(try await a.outbox.renewLeases(holds, now: at(8)) == ["x", "y", "z"])
        #expect(try await b.outbox.claim(limit: 5, now: at(12)).isEmpty)
        #expect(try await b.outbox.claim(limit: 5, now: at(17.999)).isEmpty)
        // Another owner's renewal, or one under another attempt, changes nothing.
        #expect(try await b.outbox.renewLeases(holds, now: at(17)).isEmpty)
        #expect(try await a.outbox.renewLeases([OutboxHold(id: "x", attempt: 2)], now: at(17)).isEmpty)
        // a completes x; its renewal then no longer covers x.
        let done = try await a.outbox.complete([OutboxCompletion(first[0], .accepted(apnsUniqueID: nil))], now: at(17.5))
        #expect(done == ["x": .accepted])
        #expect(try await a.outbox.renewLeases(holds, now: at(17.5)) == ["y", "z"])
        // Past the last renewal (27.5 s) b takes y and z over; a's renewal after that finds none of them.
        #expect(try await b.outbox.claim(limit: 5, now: at(27.4)).isEmpty)
        let second = try await b.outbox.claim(limit: 5, now: at(27.6))
        #expect(Set(second.map(\.id)) == ["y", "z"] && second.map(\.attempts) == [2, 2])
        #expect(try await a.outbox.renewLeases(holds, now: at(28)).isEmpty)
        #expect(try await a.outbox.item(id: "y")?.state == .inFlight)
    }

    @Test func storesWhoseClaimsNeverLapseRenewNothing() async throws {
        let memory = PushRepositories.inMemory()
        #expect(memory.outbox.leaseRenewalInterval == nil)
        try await memory.outbox.enqueue([outboxItem("m")])
        let claim = try await memory.outbox.claim(limit: 1, now: t0)
        #expect(try await memory.outbox.renewLeases([OutboxHold(id: "m", attempt: claim[0].attempts)], now: t0).isEmpty)
    }

    @Test func aRetriedRowIsClaimedAgainAfterItsBackOffByEitherInstance() async throws {
        let (a, b) = try await Self.instances()
        try await a.outbox.enqueue([outboxItem("r")])
        let claim = try await a.outbox.claim(limit: 1, now: t0)
        let states = try await a.outbox.complete([OutboxCompletion(claim[0], .retry(status: 503, reason: "ServiceUnavailable"))], now: t0)
        #expect(states == ["r": .queued])
        let row = try #require(try await b.outbox.item(id: "r"))
        #expect(row.nextAttemptAt == at(1))  // the default policy: 1 s after the first attempt
        #expect(try await b.outbox.claim(limit: 1, now: at(0.999)).isEmpty)
        #expect(try await b.outbox.claim(limit: 1, now: at(1)).map(\.attempts) == [2])
    }

    @Test func anEnqueueWakesTheListenersOfEveryInstance() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let a = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a", clock: .caller)
        let b = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "b", clock: .caller)
        let seenByA = a.outboxGeneration
        let seenByB = b.outboxGeneration
        try await PostgresOutboxRepository(database: a).enqueue([outboxItem("n")])
        // Both wait for the announcement; neither sleeps nor polls. (An enqueue that fails announces nothing.)
        #expect(try await awaitEvent("instance b to hear of the enqueue") { await b.waitForOutbox(after: seenByB) } > seenByB)
        #expect(try await awaitEvent("instance a to hear of its own enqueue") { await a.waitForOutbox(after: seenByA) } > seenByA)
        await #expect(throws: PushStoreError.duplicateID("n")) {
            try await PostgresOutboxRepository(database: b).enqueue([outboxItem("m"), outboxItem("n")])
        }
        #expect(try await PostgresOutboxRepository(database: b).item(id: "m") == nil)
    }

    @Test func theBenchmarkLoopRunsOnPostgreSQL() async throws {
        let (a, _) = try await Self.instances()
        let result = try await OutboxBenchmark.run(outbox: a.outbox, total: 2_000, batchSize: 500)
        #expect(result.cycles == 2_000)
        #expect(try await a.outbox.counts()[.accepted] == 2_000)
    }
}
