import APNSCore
import Foundation
import JSON
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

/// An endpoint `id` subscribed to `events` (all by default).
func webhookEndpoint(_ id: String, _ events: Set<WebhookEventType> = Set(WebhookEventType.allCases)) -> WebhookEndpoint {
    WebhookEndpoint(id: id, url: "http://127.0.0.1:9/\(id)", events: events, secret: "secret-\(id)", createdAt: t0)
}

@Suite("WebhookRepository: endpoints and events written with their change, in every store")
struct WebhookRepositoryTests {
    @Test(arguments: StoreKind.allCases)
    func withoutSubscribersNothingIsWritten(kind: StoreKind) async throws {
        let repos = try await kind.make()
        let webhooks = try #require(repos.webhooks)
        try await repos.outbox.enqueue([outboxItem("a"), outboxItem("b", token: 2)])
        let claim = try await repos.outbox.claim(limit: 10, now: at(1))
        let rejection = APNSRejection(status: 400, reason: "BadDeviceToken", timestamp: nil)
        try await repos.outbox.complete(claim.items.map { OutboxCompletion($0, .rejected(rejection)) }, now: at(2))
        #expect(try await webhooks.counts().values.reduce(0, +) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func outcomesOfNotificationsDevicesAndMateRequestsAreQueued(kind: StoreKind) async throws {
        let repos = try await kind.make(retryPolicy: OutboxRetryPolicy(maxAttempts: 1, baseDelay: .seconds(1), maxDelay: .seconds(1)))
        let webhooks = try #require(repos.webhooks)
        try await webhooks.addEndpoint(webhookEndpoint("all"))
        try await webhooks.addEndpoint(webhookEndpoint("mates", [.mateRequestCreated]))
        try await repos.outbox.enqueue([
            outboxItem("ok"), outboxItem("bad", token: 2), outboxItem("busy", token: 3), outboxItem("old", token: 4, expiration: 1),
        ])
        let claim = try await repos.outbox.claim(limit: 10, now: at(1))
        #expect(claim.expired == ["old"])
        let byID = Dictionary(uniqueKeysWithValues: claim.items.map { ($0.id, $0) })
        try await repos.outbox.complete(
            [
                OutboxCompletion(try #require(byID["ok"]), .accepted(apnsUniqueID: nil)),
                OutboxCompletion(try #require(byID["bad"]), .rejected(APNSRejection(status: 400, reason: "BadDeviceToken", timestamp: nil))),
                OutboxCompletion(try #require(byID["busy"]), .rejected(APNSRejection(status: 503, reason: "ServiceUnavailable", timestamp: nil))),
            ], now: at(2))
        _ = try await repos.devices.register(token: token(9), topic: topic, userID: "ana", environment: "production", now: at(0))
        #expect(try await repos.devices.invalidate(token: token(9), topic: topic, reason: "Unregistered", at: at(5)))
        _ = try await repos.drops.report(dropReport("ana", "bob", id: "m"), now: at(3))
        _ = try await repos.drops.report(dropReport("bob", "ana"), now: at(4))
        _ = try await repos.mates.answer(id: "m.peer", accept: false, by: "bob", at: at(6)) { _ in [] }

        let all = try await webhooks.claim(endpointID: "all", limit: 100, lease: .seconds(60), now: Date())
        #expect(
            all.map(\.type).sorted { $0.rawValue < $1.rawValue } == [
                .deviceInvalidated, .mateRequestCreated, .mateRequestCreated, .mateRequestDeclined, .notificationExpired,
                .notificationFailed, .notificationRejected,
            ])
        let rejected = try #require(all.first { $0.type == .notificationRejected })
        let json = try JSONValue.parse(rejected.body)
        #expect(json["type"]?.stringValue == "notification.rejected")
        #expect(json["data"]?["notification_id"]?.stringValue == "bad")
        #expect(json["data"]?["reason"]?.stringValue == "BadDeviceToken")
        #expect(json["data"]?["status"]?.intValue == 400)
        #expect(json["id"]?.stringValue == rejected.eventID)
        // The failed row's event carries the result that ended it; the expired row's, what the row holds.
        let failed = try JSONValue.parse(try #require(all.first { $0.type == .notificationFailed }).body)
        #expect(failed["data"]?["notification_id"]?.stringValue == "busy")
        #expect(failed["data"]?["status"]?.intValue == 503 && failed["data"]?["reason"]?.stringValue == "ServiceUnavailable")
        let expired = try JSONValue.parse(try #require(all.first { $0.type == .notificationExpired }).body)
        #expect(expired["data"]?["reason"]?.stringValue == "Expired" && expired["data"]?["status"] == nil)
        let invalidated = try JSONValue.parse(try #require(all.first { $0.type == .deviceInvalidated }).body)
        #expect(invalidated["data"]?["reason"]?.stringValue == "Unregistered")
        #expect(invalidated["data"]?["apns_timestamp"]?.intValue == Int(at(5).storeMillis))
        let mates = try await webhooks.claim(endpointID: "mates", limit: 100, lease: .seconds(60), now: Date())
        #expect(mates.map(\.type) == [.mateRequestCreated, .mateRequestCreated])
        #expect(Set(mates.map(\.eventID)) == Set(all.filter { $0.type == .mateRequestCreated }.map(\.eventID)), "one event id per event")
    }

    @Test(arguments: StoreKind.allCases)
    func claimsAreLeasedAndFencedAndFailuresBackOff(kind: StoreKind) async throws {
        let webhooks = try #require(try await kind.make().webhooks)
        try await webhooks.addEndpoint(webhookEndpoint("a"))
        let events = (0..<3).map { WebhookEvent(type: .notificationRejected, occurredAt: at(Double($0)), data: ["n": .int(Int64($0))]) }
        #expect(try await webhooks.record(events) == 3)
        let retry = WebhookRetryPolicy(initialDelay: .seconds(10), maxDelay: .seconds(10), giveUpAfter: .seconds(100))

        let first = try await webhooks.claim(endpointID: "a", limit: 2, lease: .seconds(30), now: at(5))
        #expect(first.map(\.eventID) == events.prefix(2).map(\.id))
        #expect(first.allSatisfy { $0.state == .inFlight && $0.attempts == 1 })
        let second = try await webhooks.claim(endpointID: "a", limit: 5, lease: .seconds(30), now: at(6))
        #expect(second.map(\.eventID) == [events[2].id], "rows under a running lease are not claimed again")
        try await webhooks.complete(
            [
                WebhookAttempt(first[0], delivered: true, status: 204, error: nil),
                WebhookAttempt(first[1], delivered: false, status: 500, error: "HTTP 500"),
            ], retry: retry, now: at(7))
        #expect(try await webhooks.claim(endpointID: "a", limit: 5, lease: .seconds(30), now: at(8)).isEmpty)
        // The lease of the third ran out (its instance died): it is claimed again, and the old claim's
        // late answer is stale.
        let retaken = try await webhooks.claim(endpointID: "a", limit: 5, lease: .seconds(30), now: at(37))
        #expect(Set(retaken.map(\.eventID)) == [events[1].id, events[2].id])
        try await webhooks.complete([WebhookAttempt(second[0], delivered: true, status: 200, error: nil)], retry: retry, now: at(38))
        #expect(try await webhooks.counts()[.delivered] == 1)
        #expect(try await webhooks.pendingCounts() == [.pending: 0, .inFlight: 2])
        let failedOnly = try await webhooks.deliveries(endpointID: "a", failedOnly: true, limit: 10)
        #expect(failedOnly.map(\.eventID) == [events[1].id])
        #expect(failedOnly.first?.lastStatus == 500 && failedOnly.first?.lastError == "HTTP 500")
        // Past the retry window the next failure gives up.
        let late = try #require(retaken.first { $0.eventID == events[1].id })
        try await webhooks.complete([WebhookAttempt(late, delivered: false, status: nil, error: "timeout")], retry: retry, now: at(95))
        #expect(try await webhooks.counts()[.failed] == 1)
        #expect(try await webhooks.purge(olderThan: at(96), limit: 10) == 2)
        #expect(try await webhooks.counts()[.inFlight] == 1)
        #expect(try await webhooks.pendingCounts() == [.pending: 0, .inFlight: 1])
    }

    @Test(arguments: StoreKind.allCases)
    func endpointsFromTheAPIAndTheConfiguration(kind: StoreKind) async throws {
        let webhooks = try #require(try await kind.make().webhooks)
        try await webhooks.addEndpoint(webhookEndpoint("api"))
        await #expect(throws: PushStoreError.duplicateID("api")) { try await webhooks.addEndpoint(webhookEndpoint("api")) }
        var configured = webhookEndpoint("file", [.deviceInvalidated])
        configured.source = .config
        try await webhooks.replaceConfigured([configured])
        #expect(try await webhooks.endpoints().map(\.id) == ["api", "file"])
        try await webhooks.record([WebhookEvent(type: .deviceInvalidated, occurredAt: t0, data: [:])])
        #expect(try await webhooks.counts()[.pending] == 2)
        #expect(try await webhooks.pendingCounts() == [.pending: 2, .inFlight: 0])
        try await webhooks.replaceConfigured([])
        #expect(try await webhooks.endpoints().map(\.id) == ["api"])
        #expect(try await webhooks.counts()[.pending] == 1, "a removed endpoint's queued events go with it")
        #expect(try await webhooks.endpoint(id: "api")?.secret == "secret-api")
        #expect(try await webhooks.removeEndpoint(id: "api"))
        #expect(try await !webhooks.removeEndpoint(id: "api"))
    }
}
