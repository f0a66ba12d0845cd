import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushStore
import TestSupport
import Testing

@Suite("push-server in-process with the mock APNs")
struct PushServiceIntegrationTests {
    @Test("a push to a user reaches the mock and the API reports it accepted")
    func pushToUser() async throws {
        let harness = try await ServiceHarness.start()
        let token = try await harness.addUser("alice")
        let created = try await harness.client.send(
            "POST", "/v1/pushes",
            json: [
                "user_id": "alice", "alert": ["title": "Woof", "body": "Rex says hi"], "category": "GREETING",
            ])
        #expect(created.status == 202)
        let pushID = try #require(created.json?["push_id"]?.stringValue)
        #expect(created.json?["notifications"]?[0]?["token"]?.stringValue == token)
        try await awaitEvent("1 notification accepted by the mock") { [mock = harness.mock] in await mock.waitForAccepted(count: 1) }
        let record = try #require(harness.mock.records().first)
        #expect(record.token == token)
        #expect(record.topic == ServiceHarness.topic)
        let payload = try JSONValue.parse(record.payload)
        #expect(payload["aps"]?["alert"]?["title"]?.stringValue == "Woof")
        #expect(payload["aps"]?["category"]?.stringValue == "GREETING")

        let waited = try await harness.client.send("POST", "/v1/pushes?wait=true", json: ["user_id": "alice", "alert": "again"])
        #expect(waited.status == 200)
        #expect(waited.json?["complete"]?.boolValue == true)
        #expect(waited.json?["notifications"]?[0]?["state"]?.stringValue == "accepted")
        #expect(waited.json?["notifications"]?[0]?["apns_id"]?.stringValue != nil)

        let status = try await harness.client.send("GET", "/v1/pushes/\(pushID)")
        #expect(status.status == 200)
        #expect(status.json?["notifications"]?[0]?["token"]?.stringValue == token)
        await harness.stop()
    }

    @Test("pushes to explicit tokens, de-duplicated, answer one id per token")
    func pushToTokens() async throws {
        let harness = try await ServiceHarness.start()
        let tokens = (0..<50).map { _ in ServiceHarness.randomToken() }
        let body: JSONValue = [
            "tokens": .array((tokens + [tokens[0].uppercased()]).map { .string($0) }),
            "payload": ["aps": ["alert": "hi"], "x": 1], "environment": "development",
        ]
        let response = try await harness.client.send("POST", "/v1/pushes?wait=true", json: body)
        #expect(response.status == 200)
        #expect(response.json?["notifications"]?.arrayValue?.count == 50)
        #expect(response.json?["counts"]?["accepted"]?.intValue == 50)
        #expect(Set(harness.mock.records().map(\.token)) == Set(tokens))
        await harness.stop()
    }

    @Test("410 Unregistered invalidates the device unless it registered again after the timestamp")
    func unregisteredInvalidates() async throws {
        let harness = try await ServiceHarness.start()
        let stale = try await harness.addUser("bob")
        harness.mock.unregisterToken(stale, at: Date().addingTimeInterval(5))
        let first = try await harness.client.send("POST", "/v1/pushes?wait=true", json: ["user_id": "bob", "alert": "hi"])
        #expect(first.json?["notifications"]?[0]?["state"]?.stringValue == "rejected")
        #expect(first.json?["notifications"]?[0]?["reason"]?.stringValue == "Unregistered")
        #expect(first.json?["notifications"]?[0]?["status"]?.intValue == 410)
        let devices = try await harness.client.send("GET", "/v1/users/bob/devices")
        #expect(devices.json?["devices"]?[0]?["active"]?.boolValue == false)
        #expect(devices.json?["devices"]?[0]?["invalid_reason"]?.stringValue == "Unregistered")
        let again = try await harness.client.send("POST", "/v1/pushes", json: ["user_id": "bob", "alert": "hi"])
        #expect(again.status == 422)
        #expect(again.errorCode == "no_devices")

        let fresh = try await harness.addUser("carol")
        harness.mock.unregisterToken(fresh, at: Date().addingTimeInterval(-60))
        let second = try await harness.client.send("POST", "/v1/pushes?wait=true", json: ["user_id": "carol", "alert": "hi"])
        #expect(second.json?["notifications"]?[0]?["reason"]?.stringValue == "Unregistered")
        let carol = try await harness.client.send("GET", "/v1/users/carol/devices")
        #expect(carol.json?["devices"]?[0]?["active"]?.boolValue == true)
        await harness.stop()
    }

    static let malformed: [(method: String, path: String, body: String?, status: Int)] = [
        ("PUT", "/v1/users/zed", "{not json", 400),
        ("PUT", "/v1/users/zed", "[1,2]", 400),
        ("PUT", "/v1/users/zed", #"{"name":"Zed"}"#, 400),
        ("PUT", "/v1/users/zed", #"{"name":"Zed","dog_name":7}"#, 400),
        ("PUT", "/v1/users/zed", #"{"name":"Zed","dog_name":"Rex","age":"old"}"#, 400),
        ("PUT", "/v1/users/zed", #"{"name":"Zed","dog_name":"Rex","age":99}"#, 400),
        ("PUT", "/v1/users/zed", #"{"name":"Zed","dog_name":"Rex","colour":"red"}"#, 400),
        ("PUT", "/v1/users/bad%20id", #"{"name":"Zed","dog_name":"Rex"}"#, 400),
        ("POST", "/v1/devices", "", 400),
        ("POST", "/v1/devices", #"{"token":"xyz","user_id":"zed","environment":"production"}"#, 400),
        ("POST", "/v1/devices", #"{"token":"\#(String(repeating: "a", count: 64))","user_id":"zed","environment":"staging"}"#, 400),
        ("POST", "/v1/devices", #"{"token":"\#(String(repeating: "a", count: 64))","user_id":"zed"}"#, 400),
        ("POST", "/v1/devices", #"{"token":42,"user_id":"zed","environment":"production"}"#, 400),
        ("POST", "/v1/pushes", "{", 400),
        ("POST", "/v1/pushes", #"{"alert":"hi"}"#, 400),
        ("POST", "/v1/pushes", #"{"tokens":["nothex"],"alert":"hi"}"#, 400),
        ("POST", "/v1/pushes", #"{"tokens":[],"alert":"hi"}"#, 400),
        ("POST", "/v1/pushes", #"{"tokens":"abc","alert":"hi"}"#, 400),
        ("POST", "/v1/pushes", #"{"tokens":["\#(String(repeating: "b", count: 64))"],"alert":"hi","push_type":"telepathy"}"#, 400),
        ("POST", "/v1/pushes", #"{"tokens":["\#(String(repeating: "b", count: 64))"],"alert":"hi","priority":7}"#, 400),
        ("POST", "/v1/pushes", #"{"tokens":["\#(String(repeating: "b", count: 64))"]}"#, 400),
        ("POST", "/v1/pushes", #"{"tokens":["\#(String(repeating: "b", count: 64))"],"payload":"text"}"#, 400),
        ("POST", "/v1/pushes", #"{"tokens":["\#(String(repeating: "b", count: 64))"],"payload":{"aps":{}},"alert":"x"}"#, 400),
        (
            "POST", "/v1/pushes",
            #"{"tokens":["\#(String(repeating: "b", count: 64))"],"content_available":true,"push_type":"background","priority":10}"#, 400
        ),
        (
            "POST", "/v1/pushes",
            #"{"tokens":["\#(String(repeating: "b", count: 64))"],"alert":"hi","push_type":"voip","topic":"com.example.sniffmeet"}"#, 400
        ),
        ("POST", "/v1/pushes", #"{"tokens":["\#(String(repeating: "b", count: 64))"],"alert":"\#(String(repeating: "x", count: 5000))"}"#, 400),
        ("POST", "/v1/pushes", #"{"user_id":"nobody","alert":"hi"}"#, 422),
        ("POST", "/v1/pushes", #"{"tokens":["\#(String(repeating: "b", count: 64))"],"user_id":"zed","alert":"hi"}"#, 400),
        ("POST", "/v1/drops", #"{"user_id":"zed","peer_id":"zed","distance_m":0.1}"#, 422),
        ("POST", "/v1/drops", #"{"user_id":"zed","peer_id":"amy","distance_m":"near"}"#, 400),
        ("POST", "/v1/drops", #"{"user_id":"zed","peer_id":"amy","distance_m":-1}"#, 400),
        ("POST", "/v1/drops", #"{"user_id":"zed","peer_id":"amy","distance_m":0.1}"#, 404),
        ("DELETE", "/v1/devices/nothex", nil, 400),
        ("GET", "/v1/pushes/unknown", nil, 400),
        ("GET", "/v1/pushes/00000000-0000-7000-8000-000000000000", nil, 404),
        ("GET", "/v1/pushes?wait=1", nil, 405),
        ("TRACE", "/v1/users/zed", nil, 405),
        ("POST", "/v1/pushes?wait=yes", #"{"tokens":["\#(String(repeating: "b", count: 64))"],"alert":"hi"}"#, 400),
        ("PATCH", "/v1/users/zed", "{}", 405),
        ("GET", "/v1/nowhere", nil, 404),
    ]

    @Test("malformed requests get a 4xx JSON error and write nothing")
    func malformedRequestsWriteNothing() async throws {
        let harness = try await ServiceHarness.start()
        for example in Self.malformed {
            let response = try await harness.client.send(example.method, example.path, body: example.body)
            #expect(response.status == example.status, "\(example.method) \(example.path) \(example.body ?? "")")
            #expect(response.errorCode != nil, "\(example.method) \(example.path): JSON error body")
            #expect(response.contentType == "application/json")
        }
        let counts = try await harness.server.repositories.outbox.counts()
        #expect(counts.values.reduce(0, +) == 0)
        #expect(try await harness.server.repositories.users.user(id: "zed") == nil)
        #expect(try await harness.server.repositories.devices.devices(forUser: "zed", includeInvalidated: true).isEmpty)
        #expect(harness.mock.counters().streams == 0)
        await harness.stop()
    }

    @Test("every /v1 route answers 401 JSON without a valid key")
    func unauthorized() async throws {
        let harness = try await ServiceHarness.start()
        let v1 = harness.server.operations.filter { $0.contains(" /v1/") }
        #expect(v1.count == 29)
        for operation in v1.sorted() {
            let parts = operation.split(separator: " ", maxSplits: 1)
            let path = parts[1].replacingOccurrences(of: "{id}", with: "u1")
                .replacingOccurrences(of: "{token}", with: String(repeating: "c", count: 64))
            for client in [
                harness.client.with(apiKey: nil), harness.client.with(apiKey: "wrong-key"),
                harness.client.with(apiKey: ServiceHarness.apiKey + "x"),
                harness.client.with(apiKey: ServiceHarness.apiKey + String(repeating: "x", count: 256)),
            ] {
                let method = String(parts[0])
                let response = try await client.send(method, path, body: ["GET", "DELETE"].contains(method) ? nil : "{}")
                #expect(response.status == 401, "\(operation)")
                #expect(response.errorCode == "unauthorized", "\(operation)")
            }
        }
        #expect(try await harness.client.with(apiKey: nil).send("GET", "/healthz").status == 200)
        #expect(try await harness.server.repositories.users.user(id: "u1") == nil)
        await harness.stop()
    }

    @Test("healthz and metrics report the database, APNs, pushes, outbox and requests")
    func healthAndMetrics() async throws {
        let harness = try await ServiceHarness.start()
        try await harness.addUser("dora")
        _ = try await harness.client.send("POST", "/v1/pushes?wait=true", json: ["user_id": "dora", "alert": "hi"])
        let health = try await harness.client.send("GET", "/healthz")
        #expect(health.json?["database"]?.stringValue == "ok")
        #expect(health.json?["apns"]?["development"]?.stringValue == "ok")
        let metrics = try await harness.client.send("GET", "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains("push_notifications_total{app=\"default\",outcome=\"accepted\",reason=\"\"} 1"))
        #expect(text.contains("push_outbox_depth 0"))
        #expect(text.contains("http_requests_total{route=\"POST /v1/pushes\",status=\"200\"} 1"))
        #expect(text.contains("push_send_latency_seconds_count{app=\"default\"} 1"))
        #expect(text.contains("profile_drop_matches_total 0"))
        #expect(text.contains("push_apns_connections{app=\"default\",environment=\"development\"} 1"))
        #expect(text.contains("push_apns_open_streams{app=\"default\",environment=\"development\"} 0"))
        await harness.stop()
    }
}
