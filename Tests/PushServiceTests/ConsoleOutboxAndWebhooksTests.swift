import APNSCore
import Foundation
import PushHTTP
import PushStore
import TestSupport
import Testing

@testable import PushService

/// The overview's outbox per app and the webhooks page's recent deliveries, against the service with its
/// real stores (and, for webhooks, real receivers in another process).
@Suite("console: outbox per app, webhooks' recent deliveries")
struct ConsoleOutboxAndWebhooksTests {
    /// The HTML of the element opened by the first `marker`, up to its `closing` tag.
    static func section(_ page: String, _ marker: String, closing: String = "</table>") -> String? {
        guard let start = page.range(of: marker) else { return nil }
        guard let end = page.range(of: closing, range: start.upperBound..<page.endIndex) else { return nil }
        return String(page[start.lowerBound..<end.upperBound])
    }

    @Test("the overview counts each app's queued rows (its topics and their push-type suffixes) with the oldest one's age")
    func outboxPerApp() async throws {
        let fixture = try await MultiAppFixture.start()
        defer { Task { await fixture.stop() } }
        // Rows due in an hour (the worker leaves them queued), enqueued two minutes ago.
        let enqueued = Date().addingTimeInterval(-120)
        func row(_ topic: String, _ n: UInt8, minutesLater: Double = 0) -> OutboxItem {
            var item = OutboxItem(
                pushID: "console-depth", token: DeviceToken(bytes: [UInt8](repeating: n, count: 32)), topic: topic, pushType: "alert",
                payload: Array(#"{"aps":{"alert":"later"}}"#.utf8), environment: "development",
                now: enqueued.addingTimeInterval(minutesLater * 60))
            item.nextAttemptAt = Date().addingTimeInterval(3_600)
            return item
        }
        try await fixture.server.api.outbox.enqueue([
            row(MultiAppFixture.dogs, 1), row(MultiAppFixture.dogs + ".voip", 2, minutesLater: 1), row("com.example.nobody", 3),
        ])
        let visit = ConsoleVisit(fixture.server)
        await visit.signIn(ServiceHarness.apiKey)
        let page = await visit.request("GET", "/console")
        #expect(page.status == 200)
        let dogs = try #require(Self.section(page.text, "data-app=\"dogs\"", closing: "</tr>"), "\(page.text)")
        #expect(dogs.contains("<td class=\"queued\">2</td><td class=\"in-flight\">0</td>"), "\(dogs)")
        #expect(dogs.contains("<td class=\"oldest\">2 min"), "\(dogs)")
        let walks = try #require(Self.section(page.text, "data-app=\"walks\"", closing: "</tr>"))
        #expect(walks.contains("<td class=\"queued\">0</td><td class=\"in-flight\">0</td><td class=\"oldest\">nothing pending</td>"), "\(walks)")
        let unserved = try #require(Self.section(page.text, "class=\"outbox-unserved\"", closing: "</tr>"), "\(page.text)")
        #expect(unserved.contains("<td class=\"queued\">1</td>"), "\(unserved)")
    }

    @Test("the webhooks page lists each endpoint's recent deliveries, delivered ones with failed ones", .timeLimit(.minutes(2)))
    func recentDeliveries() async throws {
        let receiver = try await WebhookReceiver.start(secret: WebhookDeliveryTests.secret)
        let stranger = try await WebhookReceiver.start(secret: "another-secret-9876543210")
        defer {
            receiver.stop()
            stranger.stop()
        }
        let logs = LineWaiter()
        let harness = try await WebhookDeliveryTests.service(logs: logs)
        defer { Task { await harness.stop() } }
        try await WebhookDeliveryTests.register(harness, id: "ops", url: "http://127.0.0.1:\(receiver.port)/")
        try await WebhookDeliveryTests.register(harness, id: "wrong", url: "http://127.0.0.1:\(stranger.port)/")
        try await WebhookDeliveryTests.rejectedPush(harness)
        #expect(await logs.waitFor(WebhookDeliveryTests.delivered(1)))
        // The second failed attempt of `wrong` is logged after the first one was recorded.
        #expect(await logs.waitFor { $0.filter { $0.contains("event=webhook.attempt_failed") && $0.contains("endpoint=wrong") }.count >= 2 })

        let visit = ConsoleVisit(harness.server)
        await visit.signIn(ServiceHarness.apiKey)
        let page = await visit.request("GET", "/console/webhooks")
        #expect(page.status == 200)
        let ops = try #require(Self.section(page.text, "data-endpoint=\"ops\""), "\(page.text)")
        #expect(ops.contains("<td class=\"state delivered\">delivered</td><td class=\"attempts\">1</td>"), "\(ops)")
        #expect(ops.contains("notification.rejected"))
        let wrong = try #require(Self.section(page.text, "data-endpoint=\"wrong\""), "\(page.text)")
        #expect(wrong.contains("<td class=\"status\">401</td><td class=\"error\">HTTP 401</td>"), "\(wrong)")
        #expect(wrong.contains("state pending") || wrong.contains("state in_flight"), "\(wrong)")
        #expect(!wrong.contains("state delivered"))
    }
}
