import APNSCore
import Foundation
import PostgresDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// The target lists of claimed pushes kept by each instance (`OutboxTargetCache` on PostgreSQL): a large push handed out
/// in several claims has its list sent by the server, and decoded, once per instance.
@Suite("PostgreSQL claimed pushes' target lists")
struct PostgresTargetCacheTests {
    /// One push of `count` derived notifications, each to its own token.
    private static func push(_ count: Int) -> [OutboxItem] {
        var random = SystemRandomNumberGenerator()
        return OutboxID.makeDerived(count: count, at: t0, using: &random).enumerated().map { offset, id in
            OutboxItem(
                id: id.id, pushID: "fan-out", token: token(offset), topic: topic, pushType: .alert, payload: Array("{}".utf8),
                environment: .production, apnsID: id.apnsID, now: t0)
        }
    }

    @Test func aPushClaimedInSeveralPartsHasItsListReadOncePerInstance() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let a = PostgresOutboxRepository(
            database: try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "a", clock: .caller), lease: .seconds(60))
        let b = PostgresOutboxRepository(
            database: try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "b", clock: .caller), lease: .seconds(60))
        let items = Self.push(1_000)
        try await a.enqueue(items)
        var claimed: [OutboxItem] = []
        for (outbox, limit) in [(a, 300), (b, 300), (a, 300), (b, 100)] {
            claimed += try await outbox.claim(limit: limit, now: t0).items
        }
        // Every notification claimed once, each to its own target, in order.
        #expect(claimed.map(\.id) == items.map(\.id) && claimed.map(\.target) == items.map(\.target))
        #expect(a.database.targetCache.listsRead == 1 && b.database.targetCache.listsRead == 1)
        // A second push: its list is read once more by the instance that claims it.
        let more = Self.push(10)
        try await a.enqueue(more)
        #expect(try await a.claim(limit: 10, now: t0).map(\.target) == more.map(\.target))
        #expect(a.database.targetCache.listsRead == 2)
    }

    /// A cached list under the push's `lo` but for another push (another base, as after a purge freed the `lo`)
    /// is not used: the list is read again.
    @Test func aListCachedForAnotherPushUnderTheSameFirstSeqIsNotUsed() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 2, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        let items = Self.push(20)
        try await outbox.enqueue(items)
        let lo = try await database.pool.withConnection { db in try db.query("SELECT lo FROM outbox_pushes")[0].int64(at: 0) }
        let stale = (0..<20).map { OutboxTarget.device(token(1_000 + $0)) }
        database.targetCache.store(lo: lo, key: .init(base: "other", firstIndex: 0, count: 20), targets: stale)
        #expect(try await outbox.claim(limit: 20, now: t0).map(\.target) == items.map(\.target))
        #expect(database.targetCache.listsRead == 2)
    }
}
