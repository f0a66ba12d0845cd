import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushStore
import TestSupport
import Testing

@Suite("Idempotency-Key on POST /v1/pushes, /v1/devices and /v1/drops")
struct IdempotencyTests {
    static func pushBody(tokens: Int = 3, alert: String = "hi") -> JSONValue {
        ["tokens": .array((0..<tokens).map { _ in .string(ServiceHarness.randomToken()) }), "alert": .string(alert)]
    }

    static func rows(_ harness: ServiceHarness) async throws -> Int {
        try await harness.server.repositories.outbox.counts().values.reduce(0, +)
    }

    @Test("a repeat with the same key and body gets the first answer and creates nothing")
    func repeatReplays() async throws {
        let harness = try await ServiceHarness.start()
        let body = Self.pushBody()
        let first = try await harness.client.send("POST", "/v1/pushes", json: body, headers: ["Idempotency-Key": "order-1"])
        #expect(first.status == 202)
        #expect(first.headers["idempotent-replayed"] == nil)
        let second = try await harness.client.send("POST", "/v1/pushes", json: body, headers: ["Idempotency-Key": "order-1"])
        #expect(second.status == 202)
        #expect(second.body == first.body, "same push id and notification ids")
        #expect(second.headers["idempotent-replayed"] == "true")
        #expect(try await Self.rows(harness) == 3)
        // Without a key, the same body is a new push.
        #expect(try await harness.client.send("POST", "/v1/pushes", json: body).status == 202)
        #expect(try await Self.rows(harness) == 6)
        await harness.stop()
    }

    @Test("the same key with another body is 422 and changes nothing; a malformed key is 400")
    func mismatch() async throws {
        let harness = try await ServiceHarness.start()
        #expect(
            try await harness.client.send(
                "POST", "/v1/pushes", json: Self.pushBody(),
                headers: ["Idempotency-Key": "k"]
            ).status == 202)
        let other = try await harness.client.send(
            "POST", "/v1/pushes", json: Self.pushBody(alert: "other"),
            headers: ["Idempotency-Key": "k"])
        #expect(other.status == 422)
        #expect(other.errorCode == "idempotency_key_reused")
        let bad = try await harness.client.send(
            "POST", "/v1/pushes", json: Self.pushBody(),
            headers: ["Idempotency-Key": String(repeating: "x", count: 256)])
        #expect(bad.status == 400)
        #expect(bad.errorCode == "invalid_idempotency_key")
        #expect(try await Self.rows(harness) == 3)
        await harness.stop()
    }

    @Test("twenty concurrent repeats: one push is created, every answer is the same")
    func concurrentRepeats() async throws {
        let harness = try await ServiceHarness.start()
        let body = Self.pushBody(tokens: 5)
        let client = harness.client
        let answers = try await withThrowingTaskGroup(of: TestHTTPClient.Response.self) { group in
            for _ in 0..<20 {
                group.addTask { try await client.send("POST", "/v1/pushes", json: body, headers: ["Idempotency-Key": "burst"]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.status == 202 })
        #expect(Set(answers.map(\.body)).count == 1)
        #expect(answers.filter { $0.headers["idempotent-replayed"] == nil }.count == 1)
        #expect(try await Self.rows(harness) == 5)
        await harness.stop()
    }

    @Test("keys belong to an API key and an operation; devices honour them too")
    func scopes() async throws {
        let other = try APIKey(name: "other-client", secret: "other-client-key-0123456789")
        let harness = try await ServiceHarness.start { $0.apiKeys.append(other) }
        let body = Self.pushBody(tokens: 1)
        #expect(try await harness.client.send("POST", "/v1/pushes", json: body, headers: ["Idempotency-Key": "same"]).status == 202)
        let second = try await harness.client.with(apiKey: "other-client-key-0123456789")
            .send("POST", "/v1/pushes", json: body, headers: ["Idempotency-Key": "same"])
        #expect(second.status == 202 && second.headers["idempotent-replayed"] == nil)
        #expect(try await Self.rows(harness) == 2)

        _ = try await harness.client.send("PUT", "/v1/users/amy", json: ["name": "Amy", "dog_name": "Bo"])
        let device: JSONValue = ["token": .string(ServiceHarness.randomToken()), "user_id": "amy", "environment": "development"]
        let registered = try await harness.client.send("POST", "/v1/devices", json: device, headers: ["Idempotency-Key": "same"])
        #expect(registered.status == 201 && registered.headers["idempotent-replayed"] == nil)
        let again = try await harness.client.send("POST", "/v1/devices", json: device, headers: ["Idempotency-Key": "same"])
        #expect(again.status == 201 && again.body == registered.body && again.headers["idempotent-replayed"] == "true")
        await harness.stop()
    }

    @Test("keys survive a restart of the service on the same database")
    func survivesRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("idempotency-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let body = Self.pushBody()
        let first = try await ServiceHarness.start { $0.dataDirectory = directory }
        let answer = try await first.client.send("POST", "/v1/pushes", json: body, headers: ["Idempotency-Key": "restart"])
        #expect(answer.status == 202)
        await first.stop()
        let second = try await ServiceHarness.start { $0.dataDirectory = directory }
        let replayed = try await second.client.send("POST", "/v1/pushes", json: body, headers: ["Idempotency-Key": "restart"])
        #expect(replayed.status == 202 && replayed.body == answer.body && replayed.headers["idempotent-replayed"] == "true")
        #expect(try await Self.rows(second) == 3)
        await second.stop()
    }

    @Test("drop reports honour keys: a repeat gets the stored answer, pending or matched, and changes nothing")
    func dropsReplay() async throws {
        let harness = try await ServiceHarness.start()
        let client = harness.client
        try await harness.addUser("anna")
        try await harness.addUser("ben")
        let annaReport: JSONValue = ["user_id": "anna", "peer_id": "ben", "distance_m": 0.2]
        let pending = try await client.send("POST", "/v1/drops", json: annaReport, headers: ["Idempotency-Key": "anna-1"])
        #expect(pending.status == 201 && pending.headers["idempotent-replayed"] == nil)
        #expect(pending.json?["state"]?.stringValue == "pending")
        let pendingAgain = try await client.send("POST", "/v1/drops", json: annaReport, headers: ["Idempotency-Key": "anna-1"])
        #expect(pendingAgain.status == 201 && pendingAgain.body == pending.body && pendingAgain.headers["idempotent-replayed"] == "true")

        let benReport: JSONValue = [
            "user_id": "ben", "peer_id": "anna", "distance_m": 0.1, "direction": ["x": 0, "y": 0.1, "z": -1],
        ]
        let matched = try await client.send("POST", "/v1/drops", json: benReport, headers: ["Idempotency-Key": "ben-1"])
        #expect(matched.status == 200 && matched.headers["idempotent-replayed"] == nil)
        #expect(matched.json?["state"]?.stringValue == "matched")
        #expect(matched.json?["mate_requests"]?.arrayValue?.count == 2)
        try await awaitEvent("2 mate request notifications accepted by the mock") { [mock = harness.mock] in
            await mock.waitForAccepted(count: 2)
        }
        let matchedAgain = try await client.send("POST", "/v1/drops", json: benReport, headers: ["Idempotency-Key": "ben-1"])
        #expect(matchedAgain.status == 200 && matchedAgain.body == matched.body && matchedAgain.headers["idempotent-replayed"] == "true")
        // The first report's key still answers what it answered then (pending), though the drop has matched.
        let late = try await client.send("POST", "/v1/drops", json: annaReport, headers: ["Idempotency-Key": "anna-1"])
        #expect(late.status == 201 && late.body == pending.body && late.headers["idempotent-replayed"] == "true")

        // Nothing changed: the same two mate requests, the same two notifications, the drop still matched.
        let requests = try await client.send("GET", "/v1/users/ben/mate-requests")
        #expect(requests.json?["mate_requests"]?.arrayValue?.count == 2)
        #expect(try await Self.rows(harness) == 2)
        #expect(try await client.send("GET", "/v1/users/ben/drop").json?["state"]?.stringValue == "matched")
        await harness.stop()
    }

    @Test(
        "a repeat while the first request still runs on another instance is 409 idempotency_in_progress; once it is answered, the repeat replays it",
        .timeLimit(.minutes(2)))
    func inProgressOnAnotherInstance() async throws {
        // The channel manager holds every request until the test lets it go, so the first POST /v1/channels
        // (and its claim on the key) stays in flight for as long as the test needs.
        let manager = HeldChannelManager()
        let sender = RecordingSender()
        let senders = PushSenders(apps: [
            PushApp(
                name: "default", topics: [], servesAnyTopic: true, production: sender, development: sender,
                developmentChannels: manager)
        ])
        let harness = try await ClusterHarness.start(instances: 2, senders: senders)
        let request: JSONValue = ["environment": "development"]
        let first = Task { try await harness.client(0).send("POST", "/v1/channels", json: request, headers: ["Idempotency-Key": "held"]) }
        try await manager.waitForRequests(1)
        // Answered at once; a repeat that ran instead would wait at the manager too.
        let second = try await awaitEvent("instance 2's answer to the repeat", within: .seconds(30)) {
            try await harness.client(1).send("POST", "/v1/channels", json: request, headers: ["Idempotency-Key": "held"])
        }
        #expect(second.status == 409)
        #expect(second.errorCode == "idempotency_in_progress")
        #expect(second.headers["idempotent-replayed"] == nil)
        manager.answerAll()
        let answered = try await awaitEvent("the first request's answer once the manager lets it go") { try await first.value }
        #expect(answered.status == 201)
        let replay = try await harness.client(1).send("POST", "/v1/channels", json: request, headers: ["Idempotency-Key": "held"])
        #expect(replay.status == 201 && replay.body == answered.body && replay.headers["idempotent-replayed"] == "true")
        #expect(manager.requests == 1, "the manager saw the request once")
        await harness.stop()
    }

    @Test(
        "two instances on one database given the same key at once: one runs it, the other is told it is in progress or replays it",
        .timeLimit(.minutes(2)))
    func twoInstancesRace() async throws {
        let harness = try await ClusterHarness.start(instances: 2)
        let keys = 40
        let body = Self.pushBody(tokens: 1)
        let answers = try await ClusterHarness.concurrently(keys * 2, width: 8) { index in
            try await harness.client(index % 2).send("POST", "/v1/pushes", json: body, headers: ["Idempotency-Key": "race-\(index / 2)"])
        }
        for key in 0..<keys {
            let pair = [answers[key * 2], answers[key * 2 + 1]]
            let ran = pair.filter { $0.status == 202 && $0.headers["idempotent-replayed"] == nil }
            #expect(ran.count == 1, "key race-\(key): \(pair.map(\.status)) \(pair.map { $0.headers["idempotent-replayed"] ?? "-" })")
            for other in pair where other.status != 202 || other.headers["idempotent-replayed"] != nil {
                let replayed = other.status == 202 && other.headers["idempotent-replayed"] == "true" && other.body == ran.first?.body
                #expect(replayed || (other.status == 409 && other.errorCode == "idempotency_in_progress"), "key race-\(key): \(other.status)")
            }
        }
        #expect(try await harness.servers[0].repositories.outbox.counts().values.reduce(0, +) == keys)
        await harness.stop()
    }

    @Test("after a 409 answer of the route itself the key is released: the retry runs afresh")
    func releasedAfterConflict() async throws {
        let harness = try await ServiceHarness.start()
        let client = harness.client
        for user in ["anna", "ben", "cleo"] { try await harness.addUser(user) }
        #expect(try await client.send("POST", "/v1/drops", json: ["user_id": "anna", "peer_id": "ben", "distance_m": 0.2]).status == 201)
        let report: JSONValue = ["user_id": "cleo", "peer_id": "anna", "distance_m": 0.1]
        let busy = try await client.send("POST", "/v1/drops", json: report, headers: ["Idempotency-Key": "cleo-1"])
        #expect(busy.status == 409 && busy.errorCode == "busy")
        #expect(try await client.send("DELETE", "/v1/users/anna/drop").status == 200)
        let retry = try await client.send("POST", "/v1/drops", json: report, headers: ["Idempotency-Key": "cleo-1"])
        #expect(retry.status == 201 && retry.headers["idempotent-replayed"] == nil, "\(retry.status)")
        #expect(retry.json?["state"]?.stringValue == "pending")
        let again = try await client.send("POST", "/v1/drops", json: report, headers: ["Idempotency-Key": "cleo-1"])
        #expect(again.status == 201 && again.body == retry.body && again.headers["idempotent-replayed"] == "true")
        await harness.stop()
    }

    @Test("after a 429 the key is released: the retry is judged afresh (refused again, counted again, not replayed)")
    func releasedAfterRateLimit() async throws {
        // A bucket of 3 notifications that takes about 17 minutes to refill one.
        let limited = try APIKey(
            name: "limited", secret: "limited-client-key-0123456789",
            rateLimit: APIRateLimit(notificationsPerSecond: 0.001, notificationBurst: 3))
        let harness = try await ServiceHarness.start { $0.apiKeys.append(limited) }
        let client = harness.client.with(apiKey: "limited-client-key-0123456789")
        #expect(try await client.send("POST", "/v1/pushes", json: Self.pushBody(tokens: 3)).status == 202)
        let body = Self.pushBody(tokens: 3)
        let refused = try await client.send("POST", "/v1/pushes", json: body, headers: ["Idempotency-Key": "limited-1"])
        #expect(refused.status == 429 && refused.errorCode == "rate_limited")
        let retry = try await client.send("POST", "/v1/pushes", json: body, headers: ["Idempotency-Key": "limited-1"])
        #expect(retry.status == 429 && retry.headers["idempotent-replayed"] == nil)
        let metrics = String(decoding: try await harness.client.send("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"http_rate_limited_total{key="limited",limit="notifications"} 2"#), "both were judged by the limiter")
        // The same key with a new body is not "reused": nothing was stored for it.
        let other = try await client.send("POST", "/v1/pushes", json: Self.pushBody(tokens: 1), headers: ["Idempotency-Key": "limited-1"])
        #expect(other.status == 429 && other.errorCode == "rate_limited")
        #expect(try await Self.rows(harness) == 3)
        await harness.stop()
    }

    @Test("after a 5xx the key is released: the retry runs afresh and its answer is the one replayed")
    func releasedAfterServerError() async throws {
        let harness = try await ChannelHarness.start()
        let request: JSONValue = ["environment": "development"]
        harness.mock.setHandler(MockAPNSHandlers.rejectAll(.serviceUnavailable))
        let unavailable = try await harness.client.send("POST", "/v1/channels", json: request, headers: ["Idempotency-Key": "channel-1"])
        #expect(unavailable.status == 503 && unavailable.errorCode == "apns_unavailable", "\(unavailable.status)")
        harness.mock.setHandler(nil)
        let retry = try await harness.client.send("POST", "/v1/channels", json: request, headers: ["Idempotency-Key": "channel-1"])
        #expect(retry.status == 201 && retry.headers["idempotent-replayed"] == nil, "\(retry.status)")
        let again = try await harness.client.send("POST", "/v1/channels", json: request, headers: ["Idempotency-Key": "channel-1"])
        #expect(again.status == 201 && again.body == retry.body && again.headers["idempotent-replayed"] == "true")
        #expect(harness.mock.channels(bundleID: ServiceHarness.topic).count == 1)
        await harness.stop()
    }
}
