import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushStore
import Testing

@Suite("Live Activities through the REST API", .serialized)
struct LiveActivityServiceTests {
    private static let liveTopic = ServiceHarness.topic + ".push-type.liveactivity"

    private func register(_ harness: ChannelHarness, user: String, token: String, kind: String, _ extra: [String: JSONValue]) async throws {
        var body: [String: JSONValue] = [
            "token": .string(token), "user_id": .string(user), "environment": "development", "kind": .string(kind),
        ]
        for (key, value) in extra { body[key] = value }
        let answer = try await harness.client.send("POST", "/v1/devices", json: .object(body))
        #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
        #expect(answer.json?["kind"]?.stringValue == kind)
    }

    private func aps(_ record: MockAPNSRecord) -> JSONValue? {
        (try? JSONValue.parse(record.payload))?["aps"]
    }

    private func header(_ record: MockAPNSRecord, _ name: String) -> String? {
        record.headers.first { $0.name == name }?.value
    }

    @Test("push-to-start tokens per attributes type: a start reaches only the user's tokens of that type")
    func pushToStartPerAttributesType() async throws {
        try await ChannelHarness.run { harness in
            let walk = ServiceHarness.randomToken()
            let meet = ServiceHarness.randomToken()
            let other = ServiceHarness.randomToken()
            try await register(harness, user: "ana", token: walk, kind: "push_to_start", ["attributes_type": "WalkAttributes"])
            try await register(harness, user: "ana", token: meet, kind: "push_to_start", ["attributes_type": "MeetAttributes"])
            try await register(harness, user: "bob", token: other, kind: "push_to_start", ["attributes_type": "WalkAttributes"])
            let start: JSONValue = [
                "user_id": "ana", "attributes-type": "WalkAttributes", "attributes": ["dog": "Rex"],
                "content-state": ["distance_km": 0.0], "alert": ["title": "Walk started", "body": "Rex and Bori"],
                "input-push-token": true, "activity_id": "walk-1",
            ]
            let started = try await harness.client.send("POST", "/v1/live-activities", json: start)
            #expect(started.status == 202, "\(String(decoding: started.body, as: UTF8.self))")
            #expect(started.json?["activity_id"]?.stringValue == "walk-1")
            #expect(started.json?["notifications"]?.arrayValue?.compactMap { $0["token"]?.stringValue } == [walk])
            let records = try #require(
                await harness.mock.waitForRecords(count: 1, matching: MockAPNSRecordFilter(topic: Self.liveTopic), timeout: .seconds(60)))
            #expect(records.map(\.token) == [walk])
            let record = try #require(records.first)
            #expect(header(record, "apns-push-type") == "liveactivity" && header(record, "apns-priority") == "10")
            let payload = try #require(aps(record))
            #expect(payload["event"]?.stringValue == "start" && payload["attributes-type"]?.stringValue == "WalkAttributes")
            #expect(payload["input-push-token"]?.intValue == 1 && payload["timestamp"]?.intValue != nil)
            #expect(payload["alert"]?["title"]?.stringValue == "Walk started")
            // No token of that type: nothing to start.
            var none = start.objectValue ?? [:]
            none["attributes-type"] = "RaceAttributes"
            let refused = try await harness.client.send("POST", "/v1/live-activities", json: .object(none))
            #expect(refused.status == 422 && refused.errorCode == "no_push_to_start_token")
            // A start needs an alert (Apple: "Include an alert").
            var silent = start.objectValue ?? [:]
            silent["alert"] = nil
            let noAlert = try await harness.client.send("POST", "/v1/live-activities", json: .object(silent))
            #expect(noAlert.status == 400 && noAlert.errorCode == "invalid_field", "\(noAlert.text)")
            #expect(noAlert.errorMessage == "alert: is required to start a Live Activity", "\(noAlert.text)")
        }
    }

    @Test("start, updates, end with a dismissal date: the update tokens retire after it")
    func lifecycleRetiresUpdateTokens() async throws {
        try await ChannelHarness.run { harness in
            let ana = ServiceHarness.randomToken()
            let bob = ServiceHarness.randomToken()
            try await register(harness, user: "ana", token: ana, kind: "live_activity", ["activity_id": "walk-7"])
            try await register(harness, user: "bob", token: bob, kind: "live_activity", ["activity_id": "walk-7"])
            for (index, distance) in [0.4, 0.9].enumerated() {
                let update = try await harness.client.send(
                    "POST", "/v1/live-activities/walk-7/update",
                    json: [
                        "content-state": ["distance_km": .double(distance)], "stale-date": .int(Int64(Date().timeIntervalSince1970) + 600),
                        "relevance-score": 50,
                    ])
                #expect(update.status == 202, "\(String(decoding: update.body, as: UTF8.self))")
                #expect(update.json?["notifications"]?.arrayValue?.count == 2)
                _ = await harness.mock.waitForRecords(
                    count: 2 * (index + 1), matching: MockAPNSRecordFilter(topic: Self.liveTopic), timeout: .seconds(60))
            }
            let updates = harness.mock.records(matching: MockAPNSRecordFilter(topic: Self.liveTopic))
            #expect(updates.count == 4)
            #expect(updates.allSatisfy { header($0, "apns-priority") == "5" && aps($0)?["event"]?.stringValue == "update" })
            #expect(updates.allSatisfy { aps($0)?["relevance-score"] != nil && aps($0)?["stale-date"] != nil })
            let urgent = try await harness.client.send(
                "POST", "/v1/live-activities/walk-7/update", json: ["content-state": ["distance_km": 1.0], "priority": 1])
            #expect(urgent.status == 400 && urgent.errorCode == "invalid_field", "\(urgent.text)")
            #expect(urgent.errorMessage == "priority: must be 5 or 10", "\(urgent.text)")
            let dismissal = Int64(Date().timeIntervalSince1970) - 1
            let end = try await harness.client.send(
                "POST", "/v1/live-activities/walk-7/end",
                json: ["content-state": ["distance_km": 1.2], "dismissal-date": .int(dismissal)])
            #expect(end.status == 202)
            let ended = try #require(
                await harness.mock.waitForRecords(count: 6, matching: MockAPNSRecordFilter(topic: Self.liveTopic), timeout: .seconds(60)))
            let endRecords = ended.filter { aps($0)?["event"]?.stringValue == "end" }
            #expect(Set(endRecords.map(\.token)) == [ana, bob])
            #expect(
                endRecords.allSatisfy { aps($0)?["dismissal-date"]?.intValue.map(Int64.init) == dismissal && header($0, "apns-priority") == "10" })
            // The dismissal date passed: the tokens are retired and the activity takes no more updates.
            let late = try await harness.client.send("POST", "/v1/live-activities/walk-7/update", json: ["content-state": ["distance_km": 2.0]])
            #expect(late.status == 404 && late.errorCode == "unknown_activity")
            let stored = try await harness.server.repositories.activityTokens.tokens(userID: "ana")
            #expect(stored.count == 1 && stored[0].retiredAt != nil)
        }
    }

    @Test("an end without a dismissal date keeps the tokens for the system's four hours")
    func endWithoutDismissalKeepsTokens() async throws {
        try await ChannelHarness.run { harness in
            try await register(harness, user: "ana", token: ServiceHarness.randomToken(), kind: "live_activity", ["activity_id": "walk-8"])
            let end = try await harness.client.send("POST", "/v1/live-activities/walk-8/end", json: ["content-state": ["distance_km": 3.0]])
            #expect(end.status == 202)
            let token = try #require(try await harness.server.repositories.activityTokens.tokens(userID: "ana").first)
            let retired = try #require(token.retiredAt)
            #expect(retired.timeIntervalSinceNow > 3.9 * 3600 && retired.timeIntervalSinceNow <= 4 * 3600)
        }
    }
}
