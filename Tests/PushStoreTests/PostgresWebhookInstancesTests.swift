import Foundation
import JSON
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// Webhook claims of two push-server instances on one PostgreSQL database.
@Suite("PostgreSQL webhook queue shared by instances")
struct PostgresWebhookInstancesTests {
    @Test func concurrentClaimsNeverHandOneEventToBothAndDeadClaimsAreTakenOver() async throws {
        let (a, b) = try await PostgresOutboxInstancesTests.instances()
        try await a.webhooks.addEndpoint(webhookEndpoint("ops"))
        let events = (0..<300).map { WebhookEvent(type: .notificationRejected, occurredAt: t0, data: ["n": .int(Int64($0))]) }
        #expect(try await a.webhooks.record(events) == 300)
        // Three claimers per instance take small batches at once until nothing is due.
        let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
            for webhooks in [a.webhooks, a.webhooks, a.webhooks, b.webhooks, b.webhooks, b.webhooks] {
                group.addTask {
                    var mine: [String] = []
                    while true {
                        let claim = try await webhooks.claim(endpointID: "ops", limit: 7, lease: .seconds(30), now: at(1))
                        if claim.isEmpty { return mine }
                        mine += claim.map(\.eventID)
                    }
                }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(claimed.count == 300)
        #expect(Set(claimed) == Set(events.map(\.id)))
        // While the leases run nobody takes them; once they end (instance a died), b takes every one over, and
        // a's late answers are stale.
        #expect(try await b.webhooks.claim(endpointID: "ops", limit: 500, lease: .seconds(30), now: at(30)).isEmpty)
        let takenOver = try await b.webhooks.claim(endpointID: "ops", limit: 500, lease: .seconds(30), now: at(32))
        #expect(takenOver.count == 300 && takenOver.allSatisfy { $0.attempts == 2 })
        let stale = WebhookDelivery(
            eventID: events[0].id, endpointID: "ops", type: .notificationRejected, body: [], state: .inFlight, attempts: 1,
            nextAttemptAt: t0, lastStatus: nil, lastError: nil, createdAt: t0, updatedAt: t0)
        try await a.webhooks.complete([WebhookAttempt(stale, delivered: true, status: 200, error: nil)], retry: .default, now: at(33))
        #expect(try await a.webhooks.counts()[.delivered] == 0)
        try await b.webhooks.complete(
            takenOver.map { WebhookAttempt($0, delivered: true, status: 204, error: nil) }, retry: .default, now: at(33))
        #expect(try await a.webhooks.counts()[.delivered] == 300)
    }
}
