import APNSCore
import Foundation
import JSON
import PushService
import PushStore
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

    @Test("keys belong to an API key and an operation; devices and drops honour them too")
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
}
