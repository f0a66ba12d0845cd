import APNSCore
import Foundation
import PostgresDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// What a completion on PostgreSQL sends (`PostgresTraffic`): notifications accepted at their first attempt
/// and claimed with their range leave no row, and go to the server as their positions in the range, not as a
/// row of a dozen columns each (id, states, statuses, receipts …).
@Suite("PostgreSQL completion cost")
struct PostgresCompleteCostTests {
    @Test func acceptedRangeNotificationsGoAsTheirPositions() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        let items = Self.push(count: 2_000)
        try await outbox.enqueue(items)
        // The first completion prepares the statement; the second, of 1,000, is the one measured.
        let first = try await outbox.claim(limit: 1_000, now: t0).items
        #expect(try await outbox.complete(first.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: t0).count == 1_000)
        let claimed = try await outbox.claim(limit: 1_000, now: t0).items
        let before = database.traffic.parameterBytes
        let answer = try await outbox.complete(claimed.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: t0)
        let sent = database.traffic.parameterBytes - before
        #expect(answer.count == 1_000 && answer.values.allSatisfy { $0 == .accepted })
        #expect(sent < 16 * 1_000, "\(sent) bytes of parameters for 1,000 notifications")
        #expect(try await outbox.counts()[.accepted] == 2_000)
        #expect(try await outbox.depth() == 0)
        // Both batches left no row: run on the statement's generic plan, planned once (`planOnce`).
        #expect(try await Self.plans(database) == Plans(custom: 0, generic: 2))
        // A batch with rows of its own (a rejection) is planned as the plan cache chooses: custom at first.
        try await outbox.enqueue(Self.push(count: 1))
        let rejected = try await outbox.claim(limit: 1, now: t0).items
        let rejection = APNSRejection(status: 400, reason: "BadDeviceToken", timestamp: nil)
        _ = try await outbox.complete(rejected.map { OutboxCompletion($0, .rejected(rejection)) }, now: t0)
        #expect(try await Self.plans(database) == Plans(custom: 1, generic: 2))
    }

    struct Plans: Equatable {
        var custom: Int
        var generic: Int
    }

    /// How often the completion statement was planned, custom and generic, on the pool's connection.
    static func plans(_ database: PostgresDatabase) async throws -> Plans {
        try await database.withConnection { db in
            try db.query(
                "SELECT coalesce(sum(custom_plans), 0), coalesce(sum(generic_plans), 0) FROM pg_prepared_statements WHERE statement = $1",
                [.text(PostgresOutcomes.sql)]
            ).map { Plans(custom: $0.int(at: 0), generic: $0.int(at: 1)) }[0]
        }
    }

    /// The positions' way keeps what the rows' way did: a notification completed twice leaves once, a range
    /// completed in parts keeps the rest in flight, an attempt taken over since changes nothing, and the
    /// answer names exactly the notifications that changed.
    @Test func positionsKeepTheFenceAndTheRest() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        try await outbox.enqueue(Self.push(count: 10))
        let claimed = try await outbox.claim(limit: 10, now: t0).items
        #expect(claimed.count == 10)
        // Three of the range, one of them listed twice.
        let part = [claimed[1], claimed[4], claimed[4], claimed[7]].map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }
        let done = Set([claimed[1].id, claimed[4].id, claimed[7].id])
        #expect(Set(try await outbox.complete(part, now: t0).keys) == done)
        // Again: they left already, so nothing changes.
        #expect(try await outbox.complete(part, now: t0).isEmpty)
        #expect(try await outbox.item(id: claimed[2].id)?.state == .inFlight)
        #expect(try await outbox.item(id: claimed[4].id)?.state == .accepted)
        // The lease ends and another claim takes the rest over: the first attempt's outcomes are stale.
        let takenOver = try await outbox.claim(limit: 10, now: at(120)).items
        #expect(Set(takenOver.map(\.id)) == Set(claimed.map(\.id)).subtracting(done) && takenOver.allSatisfy { $0.attempts == 2 })
        let stale = claimed.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }
        #expect(try await outbox.complete(stale, now: at(120)).isEmpty)
        #expect(try await outbox.item(id: claimed[2].id)?.state == .inFlight)
        let answer = try await outbox.complete(takenOver.map { OutboxCompletion($0, .accepted(apnsUniqueID: nil)) }, now: at(120))
        #expect(Set(answer.keys) == Set(takenOver.map(\.id)))
        #expect(try await outbox.counts()[.accepted] == 10)
        #expect(try await database.withConnection { db in try db.query("SELECT count(*) FROM outbox_segments")[0].int(at: 0) } == 0)
    }

    static func push(count: Int) -> [OutboxItem] {
        var random = SystemRandomNumberGenerator()
        return OutboxID.makeDerived(count: count, at: t0, using: &random).enumerated().map { offset, id in
            OutboxItem(
                id: id.id, pushID: "fan-out", token: token(offset), topic: topic, pushType: .alert, payload: Array("{}".utf8),
                environment: .production, apnsID: id.apnsID, now: t0)
        }
    }
}
