import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushStore
import Testing

@Suite("Walks as Live Activities", .serialized)
struct WalkLiveActivityTests {
    private static let liveTopic = ServiceHarness.topic + ".push-type.liveactivity"

    private func event(_ record: MockAPNSRecord) -> String? {
        (try? JSONValue.parse(record.payload))?["aps"]?["event"]?.stringValue
    }

    @Test("an accepted mate request starts the walk on both phones; either user's end ends it on both")
    func walkStartsAndEnds() async throws {
        try await ChannelHarness.run(configure: { $0.walkLiveActivities = true }) { harness in
            let client = harness.client
            var starters: [String: String] = [:]
            for (user, dog) in [("anna", "Bello"), ("ben", "Fido")] {
                _ = try await client.send("PUT", "/v1/users/\(user)", json: ["name": .string(user.capitalized), "dog_name": .string(dog)])
                let starter = ServiceHarness.randomToken()
                starters[user] = starter
                let registered = try await client.send(
                    "POST", "/v1/devices",
                    json: [
                        "token": .string(starter), "user_id": .string(user), "environment": "development", "kind": "push_to_start",
                        "attributes_type": "WalkAttributes",
                    ])
                #expect(registered.status == 201)
            }
            _ = try await client.send("POST", "/v1/drops", json: ["user_id": "anna", "peer_id": "ben", "distance_m": 0.1])
            let matched = try await client.send("POST", "/v1/drops", json: ["user_id": "ben", "peer_id": "anna", "distance_m": 0.1])
            #expect(matched.json?["state"]?.stringValue == "matched")
            let listed = try await client.send("GET", "/v1/users/ben/mate-requests?role=recipient")
            let walkID = try #require(listed.json?["mate_requests"]?[0]?["id"]?.stringValue)
            let accepted = try await client.send("POST", "/v1/mate-requests/\(walkID)/accept", json: ["user_id": "ben"])
            #expect(accepted.status == 200)

            let started = try #require(
                await harness.mock.waitForRecords(count: 2, matching: MockAPNSRecordFilter(topic: Self.liveTopic), timeout: .seconds(60)))
            #expect(Set(started.map(\.token)) == Set(starters.values))
            #expect(started.allSatisfy { event($0) == "start" })
            let attributes = (try? JSONValue.parse(started[0].payload))?["aps"]?["attributes"]
            #expect(attributes?["walk_id"]?.stringValue == walkID)

            // Each phone registers the update token of the started activity under the walk's id.
            var updates: [String] = []
            for user in ["anna", "ben"] {
                let token = ServiceHarness.randomToken()
                updates.append(token)
                let registered = try await client.send(
                    "POST", "/v1/devices",
                    json: [
                        "token": .string(token), "user_id": .string(user), "environment": "development", "kind": "live_activity",
                        "activity_id": .string(walkID),
                    ])
                #expect(registered.status == 201)
            }
            let stranger = try await client.send("POST", "/v1/walks/\(walkID)/end", json: ["user_id": "cleo"])
            #expect(stranger.status == 403)
            let ended = try await client.send("POST", "/v1/walks/\(walkID)/end", json: ["user_id": "anna"])
            #expect(ended.status == 200 && ended.json?["notifications"]?.intValue == 2)
            let all = try #require(
                await harness.mock.waitForRecords(count: 4, matching: MockAPNSRecordFilter(topic: Self.liveTopic), timeout: .seconds(60)))
            let ends = all.filter { event($0) == "end" }
            #expect(Set(ends.map(\.token)) == Set(updates))
            // The tokens are retired: ending again reaches nobody, and the activity takes no updates.
            let again = try await client.send("POST", "/v1/walks/\(walkID)/end", json: ["user_id": "ben"])
            #expect(again.status == 200 && again.json?["notifications"]?.intValue == 0)
            let late = try await client.send("POST", "/v1/live-activities/\(walkID)/update", json: ["content-state": ["state": "x"]])
            #expect(late.status == 404)
        }
    }

    @Test("with the switch off an accepted mate request starts nothing")
    func switchOff() async throws {
        try await ChannelHarness.run { harness in
            let client = harness.client
            for user in ["anna", "ben"] {
                _ = try await client.send("PUT", "/v1/users/\(user)", json: ["name": .string(user), "dog_name": "Rex"])
                _ = try await client.send(
                    "POST", "/v1/devices",
                    json: [
                        "token": .string(ServiceHarness.randomToken()), "user_id": .string(user), "environment": "development",
                        "kind": "push_to_start", "attributes_type": "WalkAttributes",
                    ])
            }
            _ = try await client.send("POST", "/v1/drops", json: ["user_id": "anna", "peer_id": "ben", "distance_m": 0.1])
            _ = try await client.send("POST", "/v1/drops", json: ["user_id": "ben", "peer_id": "anna", "distance_m": 0.1])
            let walkID = try #require(
                try await client.send("GET", "/v1/users/ben/mate-requests?role=recipient").json?["mate_requests"]?[0]?["id"]?.stringValue)
            #expect(try await client.send("POST", "/v1/mate-requests/\(walkID)/accept", json: ["user_id": "ben"]).status == 200)
            // The walk's start would be in the outbox before the answer; nothing else targets these users' devices.
            #expect(try await harness.server.repositories.outbox.counts().values.reduce(0, +) == 0)
        }
    }
}
