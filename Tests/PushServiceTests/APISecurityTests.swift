import APNSCore
import Foundation
import JSON
import PushService
import PushStore
import Synchronization
import Testing

@Suite("API security over HTTP: exact keys, scopes, rate limits, failed-authentication logs")
struct APISecurityTests {
    /// The scope each operation needs: the contract operators configure keys against.
    static let expectedScopes: [String: APIScope] = [
        "GET /healthz": .read, "GET /metrics": .read,
        "PUT /v1/users/{id}": .manage, "GET /v1/users/{id}": .read,
        "POST /v1/devices": .manage, "DELETE /v1/devices/{token}": .manage, "GET /v1/users/{id}/devices": .read,
        "POST /v1/pushes": .send, "GET /v1/pushes/{id}": .read,
        "POST /v1/drops": .send, "GET /v1/users/{id}/drop": .read, "DELETE /v1/users/{id}/drop": .send,
        "GET /v1/users/{id}/mate-requests": .read,
        "POST /v1/mate-requests/{id}/accept": .send, "POST /v1/mate-requests/{id}/decline": .send,
        "GET /v1/apps": .read, "POST /v1/admin/reload": .admin,
        "POST /v1/webhooks": .admin, "GET /v1/webhooks": .admin, "DELETE /v1/webhooks/{id}": .admin,
        "GET /v1/webhooks/{id}/deliveries": .admin,
        "POST /v1/channels": .manage, "GET /v1/channels": .read, "DELETE /v1/channels/{id}": .manage,
        "GET /v1/channels/apple": .read, "POST /v1/channels/reconcile": .manage,
        "POST /v1/channels/{id}/broadcasts": .send,
        "POST /v1/live-activities": .send, "POST /v1/live-activities/{id}/update": .send,
        "POST /v1/live-activities/{id}/end": .send, "POST /v1/walks/{id}/end": .send,
    ]

    /// What each operation answers the matrix's request (ids `u1` and a token of `ab`s, `{}` as the body)
    /// when the key has the scope: the handler's own answer, so a 500 or a wrong refusal shows.
    static let allowedAnswers: [String: (status: Int, code: String?)] = [
        "GET /healthz": (200, nil), "GET /metrics": (200, nil),
        "PUT /v1/users/{id}": (400, "invalid_field"), "GET /v1/users/{id}": (404, "unknown_user"),
        "POST /v1/devices": (400, "invalid_field"), "DELETE /v1/devices/{token}": (404, "unknown_device"),
        "GET /v1/users/{id}/devices": (200, nil),
        "POST /v1/pushes": (400, "invalid_target"), "GET /v1/pushes/{id}": (400, "invalid_path"),
        "POST /v1/drops": (400, "invalid_field"), "GET /v1/users/{id}/drop": (404, "no_drop"),
        "DELETE /v1/users/{id}/drop": (404, "nothing_pending"),
        "GET /v1/users/{id}/mate-requests": (200, nil),
        "POST /v1/mate-requests/{id}/accept": (400, "invalid_path"), "POST /v1/mate-requests/{id}/decline": (400, "invalid_path"),
        "GET /v1/apps": (200, nil), "POST /v1/admin/reload": (200, nil),
        "POST /v1/webhooks": (400, "invalid_field"), "GET /v1/webhooks": (200, nil), "DELETE /v1/webhooks/{id}": (404, "unknown_webhook"),
        "GET /v1/webhooks/{id}/deliveries": (404, "unknown_webhook"),
        "POST /v1/channels": (400, "invalid_field"), "GET /v1/channels": (200, nil), "DELETE /v1/channels/{id}": (400, "invalid_path"),
        "GET /v1/channels/apple": (400, "invalid_query"), "POST /v1/channels/reconcile": (400, "invalid_field"),
        "POST /v1/channels/{id}/broadcasts": (400, "invalid_path"),
        "POST /v1/live-activities": (400, "invalid_field"), "POST /v1/live-activities/{id}/update": (400, "invalid_field"),
        "POST /v1/live-activities/{id}/end": (404, "unknown_activity"), "POST /v1/walks/{id}/end": (400, "invalid_path"),
    ]

    static func secret(for scope: APIScope) -> String { "scoped-\(scope.rawValue)-key-0123456789" }

    @Test("a valid key followed by 256 extra bytes is refused with 401, as is every near miss")
    func suffixRefused() async throws {
        let harness = try await ServiceHarness.start()
        let key = ServiceHarness.apiKey
        for extra in [String(repeating: "x", count: 256), String(repeating: "a", count: 512), "x"] {
            let response = try await harness.client.with(apiKey: key + extra).send("GET", "/v1/users/nobody")
            #expect(response.status == 401)
            #expect(response.errorCode == "unauthorized")
        }
        #expect(try await harness.client.send("GET", "/v1/users/nobody").status == 404)
        await harness.stop()
    }

    @Test("a /v1 path no route knows asks for a key before saying so, whatever follows the slash")
    func unknownPathsNeedAKey() async throws {
        let harness = try await ServiceHarness.start()
        let anonymous = harness.client.with(apiKey: nil)
        for path in ["/v1", "/v1/", "/v1/nothing-here", "/v1/\u{301}users", "/v1/%CC%81users", "/v1/\u{1F3FB}"] {
            let response = try await anonymous.send("GET", path)
            #expect(response.status == 401, "\(path)")
            #expect(response.errorCode == "unauthorized", "\(path)")
        }
        #expect(try await harness.client.send("GET", "/v1/nothing-here").status == 404)
        await harness.stop()
    }

    @Test("every route × scope: the key's scope runs the handler, every other scope gets 403 forbidden")
    func routeScopeMatrix() async throws {
        let scoped = try APIScope.allCases.map { try APIKey(name: "only-\($0.rawValue)", secret: Self.secret(for: $0), scopes: [$0]) }
        let harness = try await ServiceHarness.start { configuration in
            configuration.apiKeys += scoped
            configuration.protectMetrics = true
            configuration.protectHealthz = true
        }
        #expect(Dictionary(uniqueKeysWithValues: harness.server.routes.map { ($0.operation, $0.scope) }) == Self.expectedScopes)
        #expect(Set(Self.allowedAnswers.keys) == Set(Self.expectedScopes.keys))
        for route in harness.server.routes {
            let path = route.pattern.replacingOccurrences(of: "{id}", with: "u1")
                .replacingOccurrences(of: "{token}", with: String(repeating: "ab", count: 32))
            let body: String? = route.method == "GET" || route.method == "DELETE" ? nil : "{}"
            let anonymous = try await harness.client.with(apiKey: nil).send(route.method, path, body: body)
            #expect(anonymous.status == 401, "\(route.operation) without a key")
            for scope in APIScope.allCases {
                let response = try await harness.client.with(apiKey: Self.secret(for: scope)).send(route.method, path, body: body)
                if scope == route.scope {
                    // The handler ran: the answer it gives this request, not just "not refused".
                    let expected = Self.allowedAnswers[route.operation]
                    #expect(
                        expected.map { $0.status == response.status && $0.code == response.errorCode } == true,
                        "\(route.operation) as \(scope): \(response.status) \(response.text), expected \(expected.map { "\($0)" } ?? "an entry")")
                } else {
                    #expect(response.status == 403, "\(route.operation) as \(scope)")
                    #expect(response.errorCode == "forbidden", "\(route.operation) as \(scope)")
                }
            }
        }
        await harness.stop()
    }

    @Test("metrics and healthz are open by default and need read when protected")
    func openObservability() async throws {
        let harness = try await ServiceHarness.start()
        let anonymous = harness.client.with(apiKey: nil)
        #expect(try await anonymous.send("GET", "/metrics").status == 200)
        #expect(try await anonymous.send("GET", "/healthz").status == 200)
        await harness.stop()
    }

    @Test("request rate: the burst passes, then 429 with Retry-After, counted by key name")
    func requestRate() async throws {
        let limited = try APIKey(
            name: "limited", secret: "limited-key-0123456789",
            rateLimit: APIRateLimit(requestsPerSecond: 0.01, requestBurst: 3))
        let harness = try await ServiceHarness.start { $0.apiKeys.append(limited) }
        let client = harness.client.with(apiKey: "limited-key-0123456789")
        for _ in 0..<3 { #expect(try await client.send("GET", "/v1/users/nobody").status == 404) }
        let refused = try await client.send("GET", "/v1/users/nobody")
        #expect(refused.status == 429)
        #expect(refused.errorCode == "rate_limited")
        let retryAfter = try #require(refused.headers["retry-after"].flatMap { Int($0) })
        // One token at 0.01/s takes 100 s to come back.
        #expect((90...100).contains(retryAfter))
        // Another key is not affected.
        #expect(try await harness.client.send("GET", "/v1/users/nobody").status == 404)
        let metrics = String(decoding: try await harness.client.send("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"http_rate_limited_total{key="limited",limit="requests"} 1"#))
        #expect(!metrics.contains("limited-key-0123456789"))
        await harness.stop()
    }

    @Test("notification rate: pushes within the burst pass, then 429; one push larger than the burst is a 400")
    func notificationRate() async throws {
        let limited = try APIKey(
            name: "bulk", secret: "bulk-key-0123456789",
            rateLimit: APIRateLimit(notificationsPerSecond: 0.01, notificationBurst: 5))
        let harness = try await ServiceHarness.start { $0.apiKeys.append(limited) }
        let client = harness.client.with(apiKey: "bulk-key-0123456789")
        func push(_ count: Int) async throws -> TestHTTPClient.Response {
            let tokens = (0..<count).map { _ in JSONValue.string(ServiceHarness.randomToken()) }
            return try await client.send("POST", "/v1/pushes", json: ["tokens": .array(tokens), "alert": "hi"])
        }
        #expect(try await push(3).status == 202)
        let refused = try await push(3)
        #expect(refused.status == 429)
        #expect(refused.headers["retry-after"] != nil)
        #expect(try await push(2).status == 202)
        let tooLarge = try await push(6)
        #expect(tooLarge.status == 400)
        #expect(tooLarge.errorCode == "exceeds_rate_burst")
        let rows = try await harness.server.repositories.outbox.counts().values.reduce(0, +)
        #expect(rows == 5, "refused pushes write nothing")
        await harness.stop()
    }

    @Test("failed authentications are logged with the client address, never the key, at most ten a minute")
    func failedAuthLogs() async throws {
        let lines = Mutex<[String]>([])
        let logger = ServiceLogger(level: .info) { line in lines.withLock { $0.append(line) } }
        let harness = try await ServiceHarness.start(logger: logger)
        let wrong = "wrong-key-\(UUID().uuidString)"
        for _ in 0..<25 { #expect(try await harness.client.with(apiKey: wrong).send("GET", "/v1/users/u1").status == 401) }
        let failures = lines.withLock { $0 }.filter { $0.contains("event=http.auth_failed") }
        #expect(failures.count == 10)
        #expect(failures.allSatisfy { $0.contains("client=127.0.0.1:") && $0.contains("credential=invalid") })
        #expect(lines.withLock { $0 }.allSatisfy { !$0.contains(wrong) })
        let metrics = String(decoding: try await harness.client.send("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("http_auth_failures_total 25"))
        await harness.stop()
    }
}
