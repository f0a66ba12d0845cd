import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushStore
import Testing

@Suite("Channels and broadcasts through the REST API", .serialized)
struct ChannelServiceTests {
    @Test("create, list, broadcast, delete: Apple (the mock) and the store agree at each step")
    func channelLifecycle() async throws {
        try await ChannelHarness.run { harness in
            let id = try await harness.createChannel(policy: 1)
            let channelID = APNSChannelID(id)
            #expect(harness.mock.channels(bundleID: ServiceHarness.topic).map(\.id) == [channelID])

            let list = try await harness.client.send("GET", "/v1/channels?environment=development")
            #expect(list.status == 200)
            let listed = list.json?["channels"]?.arrayValue ?? []
            #expect(listed.count == 1 && listed.first?["id"]?.stringValue == id)
            #expect(listed.first?["message_storage_policy"]?.intValue == 1)
            #expect(try await harness.client.send("GET", "/v1/channels?environment=production").json?["channels"]?.arrayValue?.isEmpty == true)

            var body = ChannelHarness.update(1.2).objectValue ?? [:]
            body["expiration"] = .int(Int64(Date().timeIntervalSince1970) + 3600)
            let sent = try await harness.client.send(
                "POST", "/v1/channels/\(ChannelHarness.pathID(id))/broadcasts?wait=true", json: .object(body))
            #expect(sent.status == 200, "\(String(decoding: sent.body, as: UTF8.self))")
            let row = sent.json?["notifications"]?.arrayValue?.first
            #expect(row?["state"]?.stringValue == "accepted")
            #expect(row?["channel_id"]?.stringValue == id)
            #expect(row?["token"] == nil)
            #expect(harness.mock.broadcasts(channelID: channelID).filter(\.isAccepted).count == 1)

            let removed = try await harness.client.send("DELETE", "/v1/channels/\(ChannelHarness.pathID(id))")
            #expect(removed.status == 204)
            #expect(harness.mock.channels(bundleID: ServiceHarness.topic).isEmpty)
            #expect(try await harness.server.repositories.channels.channels(topic: ServiceHarness.topic, environment: nil).isEmpty)
            let again = try await harness.client.send("DELETE", "/v1/channels/\(ChannelHarness.pathID(id))")
            #expect(again.status == 404 && again.errorCode == "unknown_channel")
            let orphan = try await harness.client.send(
                "POST", "/v1/channels/\(ChannelHarness.pathID(id))/broadcasts", json: ChannelHarness.update(1))
            #expect(orphan.status == 404 && orphan.errorCode == "unknown_channel", "\(orphan.text)")
        }
    }

    @Test("Apple's refusals and the broadcast rules come back as typed answers")
    func refusals() async throws {
        try await ChannelHarness.run { harness in
            let suffixed = try await harness.client.send(
                "POST", "/v1/channels", json: ["environment": "development", "topic": "com.example.sniffmeet.push-type.liveactivity"])
            #expect(suffixed.status == 400 && suffixed.errorCode == "invalid_field", "\(suffixed.text)")
            #expect(suffixed.errorMessage?.hasPrefix("topic: must be the app's bundle id without a push-type suffix") == true, "\(suffixed.text)")
            harness.mock.setBroadcastCapability(false, bundleID: ServiceHarness.topic)
            let disabled = try await harness.client.send("POST", "/v1/channels", json: ["environment": "development"])
            #expect(disabled.status == 422 && disabled.errorCode == "apns_rejected")
            #expect(String(decoding: disabled.body, as: UTF8.self).contains("FeatureNotEnabled"))
            harness.mock.setBroadcastCapability(true, bundleID: ServiceHarness.topic)
            let id = try await harness.createChannel(policy: 0)
            var stored = ChannelHarness.update(1).objectValue ?? [:]
            stored["expiration"] = .int(Int64(Date().timeIntervalSince1970) + 60)
            let expiring = try await harness.client.send(
                "POST", "/v1/channels/\(ChannelHarness.pathID(id))/broadcasts", json: .object(stored))
            #expect(expiring.status == 422 && expiring.errorCode == "invalid_expiration")
            let big: JSONValue = [
                "payload": [
                    "aps": ["timestamp": 1_685_952_000, "event": "update", "content-state": ["x": .string(String(repeating: "a", count: 6000))]]
                ]
            ]
            let tooLarge = try await harness.client.send("POST", "/v1/channels/\(ChannelHarness.pathID(id))/broadcasts", json: big)
            #expect(tooLarge.status == 413 && tooLarge.errorCode == "payload_too_large", "\(tooLarge.text)")
            #expect(tooLarge.errorMessage?.hasSuffix("a broadcast takes at most 5120") == true, "\(tooLarge.text)")
            let malformed = try await harness.client.send("DELETE", "/v1/channels/not*base64")
            #expect(malformed.status == 400 && malformed.errorCode == "invalid_path")
        }
    }

    @Test("drift both ways: a channel only at Apple and one Apple lost are listed, then adopted, forgotten and deleted")
    func driftAndReconcile() async throws {
        try await ChannelHarness.run { harness in
            let lost = try await harness.createChannel(policy: 0)
            harness.mock.clearChannels()  // Apple lost it (wiped, or the broadcast capability was turned off and on)
            let stray = try #require(harness.mock.createChannel(bundleID: ServiceHarness.topic, storagePolicy: .mostRecentMessageStored)).id.rawValue
            let before = try await harness.client.send("GET", "/v1/channels/apple?environment=development")
            #expect(before.status == 200, "\(before.text)")
            #expect(before.json?["channels"] == [["id": .string(stray), "stored": false]], "\(before.text)")
            #expect(before.json?["only_at_apple"] == [.string(stray)] && before.json?["only_stored"] == [.string(lost)], "\(before.text)")
            // The literal paths are theirs alone, not also /v1/channels/{id}: 405 lists only their methods.
            let options = try await harness.client.send("DELETE", "/v1/channels/apple")
            #expect(options.status == 405 && options.errorMessage == "allowed: GET", "\(options.text)")
            let reconcileGet = try await harness.client.send("GET", "/v1/channels/reconcile")
            #expect(reconcileGet.status == 405 && reconcileGet.errorMessage == "allowed: POST", "\(reconcileGet.text)")
            let missing = try await harness.client.send("GET", "/v1/channels/apple")
            #expect(missing.status == 400 && missing.errorCode == "invalid_query", "\(missing.text)")

            let adopt = try await harness.client.send("POST", "/v1/channels/reconcile", json: ["environment": "development", "strays": "adopt"])
            #expect(adopt.status == 200, "\(adopt.text)")
            #expect(adopt.json?["adopted"] == [.string(stray)] && adopt.json?["forgotten"] == [.string(lost)], "\(adopt.text)")
            #expect(adopt.json?["deleted"] == [], "\(adopt.text)")
            let stored = try await harness.server.repositories.channels.channels(topic: ServiceHarness.topic, environment: .development)
            #expect(stored.map(\.id.rawValue) == [stray] && stored.first?.storagePolicy == .mostRecentMessageStored)
            // The adopted channel is addressable: a stored broadcast (its policy keeps one) is accepted.
            var body = ChannelHarness.update(1).objectValue ?? [:]
            body["expiration"] = .int(Int64(Date().timeIntervalSince1970) + 600)
            let sent = try await harness.client.send("POST", "/v1/channels/\(ChannelHarness.pathID(stray))/broadcasts?wait=true", json: .object(body))
            #expect(sent.status == 200 && sent.json?["notifications"]?[0]?["state"]?.stringValue == "accepted", "\(sent.text)")
            let after = try await harness.client.send("GET", "/v1/channels/apple?environment=development")
            #expect(after.json?["only_at_apple"] == [] && after.json?["only_stored"] == [], "\(after.text)")

            let other = try #require(harness.mock.createChannel(bundleID: ServiceHarness.topic, storagePolicy: .noMessageStored)).id
            let delete = try await harness.client.send("POST", "/v1/channels/reconcile", json: ["environment": "development", "strays": "delete"])
            #expect(delete.status == 200 && delete.json?["deleted"] == [.string(other.rawValue)], "\(delete.text)")
            #expect(harness.mock.channels(bundleID: ServiceHarness.topic).map(\.id.rawValue) == [stray])
            let wrong = try await harness.client.send("POST", "/v1/channels/reconcile", json: ["environment": "development", "strays": "keep"])
            #expect(wrong.status == 400 && wrong.errorMessage == "strays: must be adopt or delete", "\(wrong.text)")
        }
    }

    @Test("60 broadcasts through the outbox under GOAWAY every 7 streams and 30 % 429: every one accepted, none lost")
    func broadcastsSurviveGoAwayAndThrottling() async throws {
        try await ChannelHarness.run(
            configure: { $0.retryMaxAttempts = 50 }, configureMock: { $0.goAwayAfterStreams = 7 }
        ) { harness in
            let id = try await harness.createChannel(policy: 1)
            let channelID = APNSChannelID(id)
            _ = harness.mock.updateKnobs { $0.faultRates = MockFaultRates(tooManyRequests: 0.3) }
            var body = ChannelHarness.update(2).objectValue ?? [:]
            body["expiration"] = .int(Int64(Date().timeIntervalSince1970) + 3600)
            let path = "/v1/channels/\(ChannelHarness.pathID(id))/broadcasts?wait=true"
            let client = harness.client
            let payload = JSONValue.object(body)
            // Each answer comes once its outbox row is final: the worker's retries decide, not the test.
            let answers = try await withThrowingTaskGroup(of: TestHTTPClient.Response.self) { group in
                for _ in 0..<60 { group.addTask { try await client.send("POST", path, json: payload) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var apnsIDs: Set<String> = []
            for answer in answers {
                #expect(answer.status == 200)
                let row = answer.json?["notifications"]?.arrayValue?.first
                #expect(row?["state"]?.stringValue == "accepted", "\(String(decoding: answer.body, as: UTF8.self))")
                if let apnsID = row?["apns_id"]?.stringValue { apnsIDs.insert(apnsID) }
            }
            #expect(apnsIDs.count == 60)
            let acceptedIDs = harness.mock.broadcasts(channelID: channelID).filter(\.isAccepted).map(\.apnsID)
            #expect(Set(acceptedIDs) == apnsIDs)
            #expect(harness.mock.counters().goAwaysSent > 0)
            #expect(harness.mock.broadcasts(channelID: channelID).contains { !$0.isAccepted })
            // Apple's broadcast request takes no apns-collapse-id: none is derived for channel rows, first try or retry.
            #expect(harness.mock.broadcasts(channelID: channelID).allSatisfy { $0.collapseID == nil })
        }
    }
}
