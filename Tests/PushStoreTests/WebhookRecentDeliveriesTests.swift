import Foundation
import JSON
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("WebhookRepository.deliveries: an endpoint's recent deliveries of every state, bounded, in every store")
struct WebhookRecentDeliveriesTests {
    @Test(arguments: StoreKind.allCases)
    func deliveredFailedAndPendingNewestChangeFirstUpToTheLimit(kind: StoreKind) async throws {
        let webhooks = try #require(try await kind.make().webhooks)
        try await webhooks.addEndpoint(webhookEndpoint("a"))
        try await webhooks.addEndpoint(webhookEndpoint("other"))
        let events = (0..<4).map { WebhookEvent(type: .notificationRejected, occurredAt: at(Double($0)), data: ["n": .int(Int64($0))]) }
        #expect(try await webhooks.record(events) == 8)
        let retry = WebhookRetryPolicy(initialDelay: .seconds(10), maxDelay: .seconds(10), giveUpAfter: .seconds(1))
        let claimed = try await webhooks.claim(endpointID: "a", limit: 2, lease: .seconds(30), now: at(5))
        #expect(claimed.map(\.eventID) == events.prefix(2).map(\.id))
        try await webhooks.complete([WebhookAttempt(claimed[0], delivered: true, status: 204, error: nil)], retry: retry, now: at(6))
        try await webhooks.complete([WebhookAttempt(claimed[1], delivered: false, status: 500, error: "HTTP 500")], retry: retry, now: at(7))

        let recent = try await webhooks.deliveries(endpointID: "a", failedOnly: false, limit: 20)
        #expect(recent.count == 4, "every delivery of the endpoint, none of another's")
        #expect(recent.allSatisfy { $0.endpointID == "a" })
        #expect(Array(recent.prefix(2).map(\.eventID)) == [events[1].id, events[0].id], "newest change first")
        let failed = recent[0]
        #expect(failed.state == .failed && failed.attempts == 1 && failed.lastStatus == 500 && failed.lastError == "HTTP 500")
        #expect(failed.updatedAt == at(7))
        let delivered = recent[1]
        #expect(delivered.state == .delivered && delivered.attempts == 1 && delivered.lastStatus == 204 && delivered.lastError == nil)
        #expect(Set(recent.suffix(2).map(\.state)) == [.pending])

        let bounded = try await webhooks.deliveries(endpointID: "a", failedOnly: false, limit: 1)
        #expect(bounded.map(\.eventID) == [events[1].id])
        #expect(try await webhooks.deliveries(endpointID: "a", failedOnly: true, limit: 20).map(\.eventID) == [events[1].id])
    }
}
