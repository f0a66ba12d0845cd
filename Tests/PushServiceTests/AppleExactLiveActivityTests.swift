import APNSCore
import APNSMock
import Foundation
import JSON
import PushStore
import Testing

@testable import PushService

/// Live Activity pushes and broadcasts checked byte for byte against Apple's pages: [A] "Starting and
/// updating Live Activities with ActivityKit push notifications" (headers `apns-push-type: liveactivity`,
/// `apns-topic: <bundle ID>.push-type.liveactivity`, `apns-priority` 5 or 10; `aps` with `timestamp`,
/// `event`, `content-state`, an `alert` whose `sound` sits inside it) and [B] "Sending broadcast push
/// notification requests to APNs" (`apns-channel-id`, `apns-push-type`, `apns-priority`, `apns-expiration`,
/// no `apns-topic`).
@Suite("Apple-exact Live Activities and broadcasts through the REST API", .serialized)
struct AppleExactLiveActivityTests {
    static let liveTopic = ServiceHarness.topic + ".push-type.liveactivity"

    private func register(_ harness: ChannelHarness, _ body: JSONValue) async throws {
        let answer = try await harness.client.send("POST", "/v1/devices", json: body)
        #expect(answer.status == 201, "\(answer.text)")
    }

    /// The `apns-*` headers of `record`, by name (the ones the service sends, not the transport's).
    private func apnsHeaders(_ record: MockAPNSRecord) -> [String: String] {
        Dictionary(record.headers.filter { $0.name.hasPrefix("apns-") }.map { ($0.name, $0.value) }) { first, _ in first }
    }

    private func timestamp(_ record: MockAPNSRecord) -> Int64 {
        (try? JSONValue.parse(record.payload))?["aps"]?["timestamp"]?.int64Value ?? -1
    }

    /// Checks the headers [A] names and the body's exact bytes (sorted keys, no whitespace; `timestamp` is
    /// the service's clock, so it is read from the record and checked to lie within the test).
    private func expectLiveActivity(
        _ record: MockAPNSRecord, priority: String, since: Int64, sourceLocation: SourceLocation = #_sourceLocation, body: (Int64) -> String
    ) {
        let headers = apnsHeaders(record)
        #expect(headers["apns-push-type"] == "liveactivity", sourceLocation: sourceLocation)
        #expect(headers["apns-topic"] == Self.liveTopic, sourceLocation: sourceLocation)
        #expect(headers["apns-priority"] == priority, sourceLocation: sourceLocation)
        #expect(headers["apns-id"].map(APNSID.isValid) == true, sourceLocation: sourceLocation)
        #expect(headers["apns-channel-id"] == nil, sourceLocation: sourceLocation)
        let stamp = timestamp(record)
        #expect(stamp >= since && stamp <= Int64(Date().timeIntervalSince1970), sourceLocation: sourceLocation)
        #expect(String(decoding: record.payload, as: UTF8.self) == body(stamp), sourceLocation: sourceLocation)
        #expect(record.isAccepted, "\(String(describing: record.rejection))", sourceLocation: sourceLocation)
    }

    @Test("start, update and end byte for byte, to tokens registered with and without the Live Activity topic")
    func byteForByte() async throws {
        try await ChannelHarness.run { harness in
            let since = Int64(Date().timeIntervalSince1970)
            let bare = ServiceHarness.randomToken()
            let suffixed = ServiceHarness.randomToken()
            try await register(
                harness,
                [
                    "token": .string(bare), "user_id": "ana", "environment": "development", "kind": "push_to_start",
                    "attributes_type": "WalkAttributes",
                ])
            try await register(
                harness,
                [
                    "token": .string(suffixed), "user_id": "ana", "environment": "development", "kind": "push_to_start",
                    "attributes_type": "WalkAttributes", "topic": .string(Self.liveTopic),
                ])
            let start: JSONValue = [
                "user_id": "ana", "attributes-type": "WalkAttributes", "attributes": ["dog": "Rex"], "activity_id": "walk-exact",
                "content-state": ["km": 0], "alert": ["title": "Walk started", "body": "Rex and Bori", "sound": "chime.aiff"],
                "input-push-token": true,
            ]
            let started = try await harness.client.send("POST", "/v1/live-activities", json: start)
            #expect(started.status == 202, "\(started.text)")
            let starts = try #require(
                await harness.mock.waitForRecords(count: 2, matching: MockAPNSRecordFilter(topic: Self.liveTopic), timeout: .seconds(60)))
            #expect(Set(starts.map(\.token)) == [bare, suffixed])
            for record in starts {
                expectLiveActivity(record, priority: "10", since: since) {
                    #"{"aps":{"alert":{"body":"Rex and Bori","sound":"chime.aiff","title":"Walk started"},"attributes":{"dog":"Rex"},"#
                        + #""attributes-type":"WalkAttributes","content-state":{"km":0},"event":"start","input-push-token":1,"timestamp":\#($0)}}"#
                }
            }
            // The update tokens the started activity sends, one under each topic form.
            for (token, topic) in [(bare, nil), (suffixed, Self.liveTopic)] as [(String, String?)] {
                var body: [String: JSONValue] = [
                    "token": .string(token), "user_id": "ana", "environment": "development", "kind": "live_activity", "activity_id": "walk-exact",
                ]
                body["topic"] = topic.map(JSONValue.string)
                try await register(harness, .object(body))
            }
            let update = try await harness.client.send(
                "POST", "/v1/live-activities/walk-exact/update",
                json: ["content-state": ["km": 2], "alert": ["title": "Rex found a stick", "sound": "HeroDown.mp4"], "priority": 10])
            #expect(update.status == 202, "\(update.text)")
            let updates = try #require(
                await harness.mock.waitForRecords(count: 4, matching: MockAPNSRecordFilter(topic: Self.liveTopic), timeout: .seconds(60)))
            for record in updates.dropFirst(2) {
                expectLiveActivity(record, priority: "10", since: since) {
                    #"{"aps":{"alert":{"sound":"HeroDown.mp4","title":"Rex found a stick"},"content-state":{"km":2},"event":"update","timestamp":\#($0)}}"#
                }
            }
            let end = try await harness.client.send(
                "POST", "/v1/live-activities/walk-exact/end", json: ["content-state": ["km": 3], "dismissal-date": 1_663_177_260, "priority": 5])
            #expect(end.status == 202, "\(end.text)")
            let ends = try #require(
                await harness.mock.waitForRecords(count: 6, matching: MockAPNSRecordFilter(topic: Self.liveTopic), timeout: .seconds(60)))
            #expect(Set(ends.dropFirst(4).map(\.token)) == [bare, suffixed])
            for record in ends.dropFirst(4) {
                expectLiveActivity(record, priority: "5", since: since) {
                    #"{"aps":{"content-state":{"km":3},"dismissal-date":1663177260,"event":"end","timestamp":\#($0)}}"#
                }
            }
        }
    }

    @Test("a device push and a broadcast byte for byte")
    func devicePushAndBroadcast() async throws {
        try await ChannelHarness.run { harness in
            let token = ServiceHarness.randomToken()
            try await register(harness, ["token": .string(token), "user_id": "ana", "environment": "development"])
            let pushed = try await harness.client.send(
                "POST", "/v1/pushes?wait=true",
                json: ["tokens": [.string(token)], "alert": ["title": "Rex", "body": "wants a walk"], "sound": "default"])
            #expect(pushed.status == 200, "\(pushed.text)")
            let device = try #require(harness.mock.records(matching: MockAPNSRecordFilter(token: token)).first)
            let headers = apnsHeaders(device)
            // No apns-priority: APNs then sends at 10 ("Sending notification requests to APNs").
            #expect(
                headers["apns-push-type"] == "alert" && headers["apns-topic"] == ServiceHarness.topic && headers["apns-priority"] == nil, "\(headers)"
            )
            #expect(String(decoding: device.payload, as: UTF8.self) == #"{"aps":{"alert":{"body":"wants a walk","title":"Rex"},"sound":"default"}}"#)

            let id = try await harness.createChannel(policy: 0)
            let now = Int64(Date().timeIntervalSince1970)
            // [B]'s sample body, with the alert's localized title and body.
            let payload: JSONValue = [
                "aps": [
                    "timestamp": .int(now), "event": "update",
                    "content-state": ["currentHealthLevel": 0, "eventDescription": "Power Panda has been knocked down!"],
                    "alert": [
                        "title": ["loc-key": "%@ is knocked down!", "loc-args": ["Power Panda"]],
                        "body": ["loc-key": "Use a potion to heal %@!", "loc-args": ["Power Panda"]], "sound": "HeroDown.mp4",
                    ],
                ]
            ]
            let sent = try await harness.client.send(
                "POST", "/v1/channels/\(ChannelHarness.pathID(id))/broadcasts?wait=true", json: ["payload": payload])
            #expect(sent.status == 200, "\(sent.text)")
            let record = try #require(harness.mock.broadcasts(channelID: APNSChannelID(id)).first)
            #expect(record.isAccepted)
            #expect(record.token == "/4/broadcasts/apps/" + ServiceHarness.topic)
            let broadcastHeaders = apnsHeaders(record)
            #expect(broadcastHeaders["apns-channel-id"] == id)
            #expect(broadcastHeaders["apns-push-type"] == "liveactivity")
            #expect(broadcastHeaders["apns-priority"] == "10" && broadcastHeaders["apns-expiration"] == "0")
            #expect(broadcastHeaders["apns-request-id"].map(APNSID.isValid) == true)
            #expect(broadcastHeaders["apns-topic"] == nil)
            #expect(
                String(decoding: record.payload, as: UTF8.self)
                    == #"{"aps":{"alert":{"body":{"loc-args":["Power Panda"],"loc-key":"Use a potion to heal %@!"},"sound":"HeroDown.mp4","#
                    + #""title":{"loc-args":["Power Panda"],"loc-key":"%@ is knocked down!"}},"content-state":{"currentHealthLevel":0,"#
                    + #""eventDescription":"Power Panda has been knocked down!"},"event":"update","timestamp":\#(now)}}"#)
        }
    }

    @Test("broadcasts follow Apple's Live Activity payload rules and priorities 5 or 10; so do liveactivity pushes")
    func broadcastRules() async throws {
        try await ChannelHarness.run { harness in
            let id = try await harness.createChannel(policy: 0)
            let path = "/v1/channels/\(ChannelHarness.pathID(id))/broadcasts"
            let now = JSONValue.int(Int64(Date().timeIntervalSince1970))
            let refused: [(JSONValue, String)] = [
                (
                    [
                        "aps": [
                            "timestamp": now, "event": "start", "content-state": ["km": 1], "attributes-type": "WalkAttributes", "attributes": [:],
                        ]
                    ], "start"
                ),
                (["aps": ["timestamp": now, "content-state": ["km": 1]]], "aps.event is required"),
                (["aps": ["event": "update", "content-state": ["km": 1]]], "aps.timestamp is required"),
                (["aps": ["timestamp": "soon", "event": "update", "content-state": ["km": 1]]], "aps.timestamp must be"),
                (["aps": ["timestamp": 9_007_199_254_740_992, "event": "end"]], "aps.timestamp must be"),
                (["aps": ["timestamp": now, "event": "update"]], "aps.content-state is required"),
                (["aps": ["timestamp": now, "event": "update", "content-state": [1]]], "aps.content-state must be"),
            ]
            for (payload, message) in refused {
                let answer = try await harness.client.send("POST", path, json: ["payload": payload])
                #expect(answer.status == 400 && answer.errorCode == "invalid_field", "\(payload): \(answer.text)")
                #expect(answer.errorMessage?.contains(message) == true, "\(payload): \(answer.text)")
            }
            let lowPriority = try await harness.client.send(
                "POST", path, json: ["payload": ["aps": ["timestamp": now, "event": "end"]], "priority": 1])
            #expect(lowPriority.status == 400 && lowPriority.errorMessage == "priority: must be 10 or 5", "\(lowPriority.text)")
            // An end may leave content-state out; priority 5 is fine.
            let end = try await harness.client.send(
                "POST", path + "?wait=true", json: ["payload": ["aps": ["timestamp": now, "event": "end"]], "priority": 5])
            #expect(end.status == 200 && end.json?["notifications"]?[0]?["state"]?.stringValue == "accepted", "\(end.text)")
            #expect(harness.mock.broadcasts(channelID: APNSChannelID(id)).count == 1)

            let token = ServiceHarness.randomToken()
            let push = try await harness.client.send(
                "POST", "/v1/pushes",
                json: [
                    "tokens": [.string(token)], "push_type": "liveactivity", "priority": 1, "topic": .string(Self.liveTopic),
                    "payload": ["aps": ["timestamp": now, "event": "update", "content-state": ["km": 1]]],
                ])
            #expect(push.status == 400 && push.errorMessage == "priority: a liveactivity push takes 5 or 10", "\(push.text)")
        }
    }

    @Test("a channel id longer than 256 characters is stored, addressed, broadcast to, used to start and deleted")
    func longChannelID() async throws {
        try await ChannelHarness.run { harness in
            harness.mock.channelIDByteCount = 300
            let created = try await harness.client.send("POST", "/v1/channels", json: ["environment": "development"])
            try #require(created.status == 201, "\(created.text)")
            let id = try #require(created.json?["id"]?.stringValue)
            #expect(id.utf8.count == 400)
            let listed = try await harness.client.send("GET", "/v1/channels?environment=development")
            #expect(listed.json?["channels"]?[0]?["id"]?.stringValue == id, "\(listed.text)")
            let sent = try await harness.client.send(
                "POST", "/v1/channels/\(ChannelHarness.pathID(id))/broadcasts?wait=true", json: ChannelHarness.update(1))
            #expect(sent.status == 200 && sent.json?["notifications"]?[0]?["state"]?.stringValue == "accepted", "\(sent.text)")
            #expect(harness.mock.broadcasts(channelID: APNSChannelID(id)).first?.isAccepted == true)

            let token = ServiceHarness.randomToken()
            try await register(
                harness,
                [
                    "token": .string(token), "user_id": "ana", "environment": "development", "kind": "push_to_start",
                    "attributes_type": "WalkAttributes",
                ])
            let start = try await harness.client.send(
                "POST", "/v1/live-activities",
                json: [
                    "user_id": "ana", "attributes-type": "WalkAttributes", "attributes": [:], "content-state": ["km": 0],
                    "alert": ["title": "Walk"], "input-push-channel": .string(id),
                ])
            #expect(start.status == 202, "\(start.text)")
            let record = try #require(
                await harness.mock.waitForRecords(count: 1, matching: MockAPNSRecordFilter(token: token), timeout: .seconds(60))?.first)
            #expect((try? JSONValue.parse(record.payload))?["aps"]?["input-push-channel"]?.stringValue == id)

            let removed = try await harness.client.send("DELETE", "/v1/channels/\(ChannelHarness.pathID(id))")
            #expect(removed.status == 204, "\(removed.text)")
            #expect(harness.mock.channels(bundleID: ServiceHarness.topic).isEmpty)
        }
    }

    @Test("input-push-channel: sent as given, refused with input-push-token or when not base64")
    func inputPushChannel() async throws {
        try await ChannelHarness.run { harness in
            let token = ServiceHarness.randomToken()
            try await register(
                harness,
                [
                    "token": .string(token), "user_id": "ana", "environment": "development", "kind": "push_to_start",
                    "attributes_type": "WalkAttributes",
                ])
            let base: [String: JSONValue] = [
                "user_id": "ana", "attributes-type": "WalkAttributes", "attributes": ["dog": "Rex"], "content-state": ["km": 0],
                "alert": ["title": "Walk"], "input-push-channel": "dHN0LXNyY2gtY2hubA==",
            ]
            var both = base
            both["input-push-token"] = true
            let pair = try await harness.client.send("POST", "/v1/live-activities", json: .object(both))
            #expect(pair.status == 400 && pair.errorMessage == "input-push-channel: cannot be combined with input-push-token", "\(pair.text)")
            var malformed = base
            malformed["input-push-channel"] = "not base64!"
            let bad = try await harness.client.send("POST", "/v1/live-activities", json: .object(malformed))
            #expect(bad.status == 400 && bad.errorMessage == "input-push-channel: must be a base64 channel id", "\(bad.text)")
            let started = try await harness.client.send("POST", "/v1/live-activities?wait=true", json: .object(base))
            #expect(started.status == 200, "\(started.text)")
            #expect(started.json?["notifications"]?[0]?["state"]?.stringValue == "accepted", "\(started.text)")
            #expect(started.json?["activity_id"]?.stringValue != nil && started.json?["priority"]?.intValue == 10)
            let record = try #require(harness.mock.records(matching: MockAPNSRecordFilter(token: token)).first)
            let aps = (try? JSONValue.parse(record.payload))?["aps"]
            #expect(aps?["input-push-channel"]?.stringValue == "dHN0LXNyY2gtY2hubA==" && aps?["input-push-token"] == nil)
        }
    }

    @Test("?wait=true on update and end answers 200 with each notification's outcome")
    func waitOnLiveActivityRoutes() async throws {
        try await ChannelHarness.run { harness in
            let token = ServiceHarness.randomToken()
            try await register(
                harness,
                ["token": .string(token), "user_id": "ana", "environment": "development", "kind": "live_activity", "activity_id": "walk-wait"])
            let update = try await harness.client.send("POST", "/v1/live-activities/walk-wait/update?wait=true", json: ["content-state": ["km": 1]])
            #expect(update.status == 200, "\(update.text)")
            #expect(update.json?["notifications"]?[0]?["state"]?.stringValue == "accepted", "\(update.text)")
            #expect(update.json?["activity_id"]?.stringValue == "walk-wait" && update.json?["priority_downgraded"]?.boolValue == false)
            let end = try await harness.client.send("POST", "/v1/live-activities/walk-wait/end?wait=true", json: ["content-state": ["km": 2]])
            #expect(end.status == 200 && end.json?["notifications"]?[0]?["state"]?.stringValue == "accepted", "\(end.text)")
        }
    }
}
