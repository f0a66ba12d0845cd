import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushStore
import Testing

/// The outbox bound refuses broadcasts and Live Activity events as it refuses pushes.
@Suite("outbox admission for broadcasts and Live Activities", .serialized)
struct OutboxAdmissionEventTests {
    @Test("past the bound a broadcast and a Live Activity update get 503 outbox_full with Retry-After, and nothing is stored or spent")
    func broadcastsAndLiveActivities() async throws {
        try await ChannelHarness.run(
            configure: {
                $0.outboxBound.maxPending = 1
                $0.outboxBound.refresh = .zero
                $0.retryMaxAttempts = 10_000
            },
            configureMock: {
                // APNs answers 503 to every notification (channel management still works): what is
                // stored stays pending.
                $0.handler = { $0.path.hasPrefix("/3/device/") || $0.path.hasPrefix("/4/broadcasts/") ? .reject(.serviceUnavailable) : nil }
            }
        ) { harness in
            let id = try await harness.createChannel(policy: 1)
            let path = "/v1/channels/\(ChannelHarness.pathID(id))/broadcasts"
            var body = ChannelHarness.update(1).objectValue ?? [:]
            body["expiration"] = .int(Int64(Date().timeIntervalSince1970) + 3600)
            let first = try await harness.client.send("POST", path, json: .object(body))
            #expect(first.status == 202, "\(first.text)")

            let second = try await harness.client.send("POST", path, json: .object(body))
            #expect(second.status == 503 && second.errorCode == "outbox_full", "\(second.text)")
            #expect(second.headers["retry-after"] == "5")

            // An activity with an update token: a priority-10 update past the bound is refused before it
            // spends any of the activity's priority-10 budget.
            let registered = try await harness.client.send(
                "POST", "/v1/devices",
                json: [
                    "token": .string(String(repeating: "ab", count: 32)), "user_id": "ana", "environment": "development",
                    "kind": "live_activity", "activity_id": "walk-full",
                ])
            #expect(registered.status == 201, "\(registered.text)")
            let refused = try await harness.client.send(
                "POST", "/v1/live-activities/walk-full/update", json: ["content-state": ["km": 2], "priority": 10])
            #expect(refused.status == 503 && refused.errorCode == "outbox_full", "\(refused.text)")
            #expect(refused.headers["retry-after"] == "5")

            let counts = try await harness.server.repositories.outbox.counts()
            #expect(counts.values.reduce(0, +) == 1, "only the first broadcast is stored: \(counts)")
            let metrics = try await harness.client.send("GET", "/metrics")
            #expect(metrics.text.contains(#"push_outbox_refused_total{app="",limit="rows"} 2"#))
            // The refused update spent none of the budget: a budget of one is still there to take.
            let budget = try await harness.server.repositories.activityTokens.takePriorityBudget(
                activityID: "walk-full", limit: 1, window: .seconds(3_600), now: Date())
            #expect(budget, "the refused update spent the activity's priority-10 budget")
        }
    }
}
