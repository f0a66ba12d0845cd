import APNSMock
import Foundation
import JSON
import PushService
import PushStore
import Testing

/// Webhook deliveries from the whole service (in-process) to a real HTTP receiver in another process
/// (`Tests/Webhooks/webhook-receiver.py`), which checks every signature.
@Suite("Webhook delivery")
struct WebhookDeliveryTests {
    static let secret = "whsec_test_0123456789abcdef"

    /// A service whose webhook worker looks often, gives up on a silent receiver after `timeout` and
    /// retries after 0.1 s, 0.2 s, ….
    static func service(timeout: Duration = .seconds(2), logs: LineWaiter? = nil) async throws -> ServiceHarness {
        let logger = logs.map { waiter in ServiceLogger(level: .debug) { waiter.append($0) } } ?? .silent
        return try await ServiceHarness.start(logger: logger) { configuration in
            configuration.webhooks.pollInterval = .milliseconds(50)
            configuration.webhooks.timeout = timeout
            configuration.webhooks.retry = WebhookRetryPolicy(
                initialDelay: .milliseconds(100), maxDelay: .milliseconds(500), giveUpAfter: .seconds(3600))
        }
    }

    /// Registers `url` for every event type through the API.
    static func register(_ harness: ServiceHarness, id: String, url: String, secret: String = secret) async throws {
        let created = try await harness.client.send(
            "POST", "/v1/webhooks", json: ["id": .string(id), "url": .string(url), "events": ["*"], "secret": .string(secret)])
        #expect(created.status == 201)
        #expect(created.json?["secret"]?.stringValue == secret)
    }

    /// A push to `count` tokens APNs answers 410 Unregistered: `count` notification.rejected events.
    static func rejectedPush(_ harness: ServiceHarness, count: Int = 1) async throws {
        let tokens = (0..<count).map { _ in ServiceHarness.randomToken() }
        for token in tokens { harness.mock.unregisterToken(token, at: Date()) }
        let push = try await harness.client.send(
            "POST", "/v1/pushes?wait=true",
            json: ["tokens": .array(tokens.map { .string($0) }), "alert": "hi", "environment": "development"])
        #expect(push.json?["counts"]?["rejected"]?.intValue == count)
    }

    /// True once the worker has recorded `events` events as delivered (its debug log says so).
    static func delivered(_ events: Int) -> @Sendable ([String]) -> Bool {
        { lines in
            lines.filter { $0.contains("event=webhook.delivered") }
                .compactMap { line in line.split(separator: " ").first { $0.hasPrefix("events=") }.flatMap { Int($0.dropFirst(7)) } }
                .reduce(0, +) >= events
        }
    }

    static func count(_ prefix: String) -> @Sendable ([String]) -> Bool {
        { lines in lines.contains { $0.hasPrefix(prefix) } }
    }

    @Test("Signed events reach the receiver; a receiver with another secret refuses them and they stay queued", .timeLimit(.minutes(2)))
    func signedEvents() async throws {
        let receiver = try await WebhookReceiver.start(secret: Self.secret)
        let stranger = try await WebhookReceiver.start(secret: "another-secret-9876543210")
        let logs = LineWaiter()
        let harness = try await Self.service(logs: logs)
        try await Self.register(harness, id: "ops", url: "http://127.0.0.1:\(receiver.port)/hooks?x=1")
        try await Self.register(harness, id: "wrong", url: "http://127.0.0.1:\(stranger.port)/")
        let stale = try await harness.addUser("bob")
        harness.mock.unregisterToken(stale, at: Date().addingTimeInterval(5))
        _ = try await harness.client.send("POST", "/v1/pushes?wait=true", json: ["user_id": "bob", "alert": "hi"])

        #expect(await receiver.waitFor { lines in Set(lines.filter { $0.hasPrefix("EVENT ") }.map { $0.split(separator: " ")[2] }).count == 2 })
        let types = Set(receiver.events.map(\.type))
        #expect(types == ["notification.rejected", "device.invalidated"])
        #expect(receiver.lines.filter { $0.hasPrefix("REQUEST ") }.allSatisfy { $0.hasSuffix(" ok") })
        #expect(await stranger.waitFor(Self.count("REQUEST 401 0 bad")))
        #expect(await logs.waitFor(Self.delivered(2)))

        let deliveries = try await harness.client.send("GET", "/v1/webhooks/wrong/deliveries")
        #expect(await logs.waitFor { $0.contains { $0.contains("event=webhook.attempt_failed") && $0.contains("endpoint=wrong") } })
        let failed = try await harness.client.send("GET", "/v1/webhooks/wrong/deliveries")
        #expect(deliveries.status == 200)
        let first = failed.json?["deliveries"]?[0]
        #expect(first?["last_status"]?.intValue == 401)
        #expect(first?["state"]?.stringValue == "pending" || first?["state"]?.stringValue == "in_flight")

        let listed = try await harness.client.send("GET", "/v1/webhooks")
        #expect(listed.json?["webhooks"]?.arrayValue?.count == 2)
        #expect(!String(decoding: listed.body, as: UTF8.self).contains(Self.secret))
        let metrics = String(decoding: try await harness.client.send("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"push_webhook_requests_total{endpoint="ops",outcome="delivered"}"#))
        #expect(metrics.contains(#"push_webhook_requests_total{endpoint="wrong",outcome="http_error"}"#))
        #expect(!logs.lines.contains { $0.contains(Self.secret) || $0.contains("another-secret") }, "secrets never logged")
        #expect(try await harness.client.send("DELETE", "/v1/webhooks/wrong").status == 204)
        #expect(try await harness.client.send("GET", "/v1/webhooks/wrong/deliveries").status == 404)
        await harness.stop()
        receiver.stop()
        stranger.stop()
    }

    @Test("A 500 and a receiver that never answers are retried with back-off until it answers", .timeLimit(.minutes(2)))
    func retriesAfter500AndTimeout() async throws {
        let receiver = try await WebhookReceiver.start(secret: Self.secret, mode: "500")
        let logs = LineWaiter()
        let harness = try await Self.service(timeout: .milliseconds(500), logs: logs)
        try await Self.register(harness, id: "flaky", url: "http://127.0.0.1:\(receiver.port)/")
        try await Self.rejectedPush(harness, count: 3)
        #expect(await receiver.waitFor { $0.filter { $0.hasPrefix("REQUEST 500") }.count >= 2 })
        await receiver.setMode("hang")
        #expect(await receiver.waitFor(Self.count("HANG")))
        #expect(
            await logs.waitFor { $0.contains { $0.contains("event=webhook.attempt_failed") && $0.contains("no answer in time") } },
            "the held request timed out")
        await receiver.setMode("ok")
        #expect(await receiver.waitFor { $0.filter { $0.hasPrefix("EVENT ") }.count >= 3 })
        // The receiver prints its events before it answers; the worker counts the answer when it comes.
        #expect(await logs.waitFor(Self.delivered(3)))
        let metrics = String(decoding: try await harness.client.send("GET", "/metrics").body, as: UTF8.self)
        for outcome in ["delivered", "http_error", "timeout"] {
            #expect(metrics.contains(#"push_webhook_requests_total{endpoint="flaky",outcome="\#(outcome)"}"#))
        }
        let deliveries = try await harness.client.send("GET", "/v1/webhooks/flaky/deliveries")
        let listed = deliveries.json?["deliveries"]?.arrayValue ?? []
        #expect(listed.count == 3, "every event failed at least once")
        #expect(listed.allSatisfy { $0["state"]?.stringValue == "delivered" && ($0["attempts"]?.intValue ?? 0) >= 2 })
        await harness.stop()
        receiver.stop()
    }

    @Test("A receiver down for a while gets every event once it is back", .timeLimit(.minutes(2)))
    func receiverDownThenBack() async throws {
        let first = try await WebhookReceiver.start(secret: Self.secret)
        let port = first.port
        first.stop()
        let logs = LineWaiter()
        let harness = try await Self.service(logs: logs)
        try await Self.register(harness, id: "later", url: "http://127.0.0.1:\(port)/")
        try await Self.rejectedPush(harness, count: 5)
        #expect(await logs.waitFor { $0.filter { $0.contains("event=webhook.attempt_failed") }.count >= 3 })
        let back = try await WebhookReceiver.start(secret: Self.secret, port: port)
        #expect(await back.waitFor { Set($0.filter { $0.hasPrefix("EVENT ") }).count >= 5 })
        #expect(Set(back.events.map(\.id)).count == 5)
        let metrics = String(decoding: try await harness.client.send("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"push_webhook_requests_total{endpoint="later",outcome="connection_error"}"#))
        await harness.stop()
        back.stop()
    }
}
