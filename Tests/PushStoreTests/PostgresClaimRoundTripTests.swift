import APNSCore
import Foundation
import PostgresDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// What a claim on PostgreSQL sends (`PostgresTraffic`): the pick, then the cuts, the claims and the read of
/// the claimed notifications' pushes in one round trip, then the commit.
@Suite("PostgreSQL claim round trips")
struct PostgresClaimRoundTripTests {
    @Test func aClaimCuttingARangeIsThreeRoundTrips() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "a", clock: .caller)
        let outbox = PostgresOutboxRepository(database: database, lease: .seconds(60))
        var random = SystemRandomNumberGenerator()
        let items = OutboxID.makeDerived(count: 100, at: t0, using: &random).enumerated().map { offset, id in
            OutboxItem(
                id: id.id, pushID: "fan-out", token: token(offset), topic: topic, pushType: .alert, payload: Array("{}".utf8),
                environment: .production, apnsID: id.apnsID, now: t0)
        }
        try await outbox.enqueue(items)
        // The first claim prepares its statements (a round trip each); the next ones find them prepared.
        var claimed = try await outbox.claim(limit: 10, now: t0).items
        for _ in 0..<3 {
            let before = database.traffic.roundTrips
            claimed += try await outbox.claim(limit: 10, now: t0).items
            // BEGIN, the settings and the pick; the cut, the claim and the pushes' read; COMMIT.
            #expect(database.traffic.roundTrips - before == 3)
        }
        #expect(claimed.map(\.id) == items[0..<40].map(\.id) && claimed.map(\.target) == items[0..<40].map(\.target))
        // A row with an outcome row and the rest of the range in one claim: still one round trip for both claims.
        let outcomes = claimed.enumerated().map { offset, item in
            OutboxCompletion(item, offset == 0 ? .retry(status: 503, reason: "ServiceUnavailable") : .accepted(apnsUniqueID: nil))
        }
        #expect(try await outbox.complete(outcomes, now: t0)[items[0].id] == .queued)
        let before = database.traffic.roundTrips
        let rest = try await outbox.claim(limit: 100, now: at(3_600))
        #expect(database.traffic.roundTrips - before <= 4)  // the claim of rows prepared on first use
        #expect(Set(rest.map(\.id)) == Set([items[0].id] + items[40...].map(\.id)) && rest.count == 61)
    }
}
