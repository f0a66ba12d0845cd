import APNSCore
import Foundation
import JSON
import ProfileDrop
import PushStore
import TestSupport
import Testing

@Suite("MateRequestPushes")
struct MateRequestPushesTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func notice(_ id: String = "d1.peer") -> MateRequestNotice {
        MateRequestNotice(
            request: MateRequestRecord(
                id: id, dropID: "d1", senderID: "u1", recipientID: "u2",
                createdAt: now),
            senderCard: ProfileCard(
                name: "Jimin", dogName: "Bori", breed: "Maltese", age: 4,
                imageURL: "https://example.com/bori.jpg"))
    }

    @Test("one alert row per active alert-capable device; invalidated and PushKit devices are skipped")
    func skipsDevices() async throws {
        let devices = InMemoryDeviceRepository()
        let live = DropFixture.token(user: 2, device: 0)
        let dead = DropFixture.token(user: 2, device: 1)
        let voip = DropFixture.token(user: 2, device: 2)
        _ = try await devices.register(token: live, topic: "app", userID: "u2", environment: "production", now: now)
        _ = try await devices.register(token: dead, topic: "app", userID: "u2", environment: "production", now: now)
        _ = try await devices.register(token: voip, topic: "app.voip", userID: "u2", environment: "production", now: now)
        #expect(await devices.invalidate(token: dead, topic: "app", reason: "Unregistered", at: now.addingTimeInterval(1)))

        let rows = try await MateRequestPushes(devices: devices).recipients(["u2", "u1"]).rows(for: [notice()], at: now)
        #expect(rows.map(\.target) == [.device(live)])
        let row = try #require(rows.first)
        #expect(row.pushType == "alert" && row.priority == 10 && row.collapseID == "d1" && row.topic == "app")
        #expect(row.environment == "production")
        let json = try JSONValue.parse(row.payload)
        #expect(json["aps"]?["category"]?.stringValue == "MATE_REQUEST")
        #expect(json["aps"]?["alert"]?["body"]?.stringValue == "Jimin and Bori want to walk together")
        #expect(
            json["mate_request"] == [
                "id": "d1.peer", "drop_id": "d1",
                "from": [
                    "user_id": "u1",
                    "card": [
                        "name": "Jimin", "dog_name": "Bori", "breed": "Maltese", "age": 4,
                        "image_url": "https://example.com/bori.jpg",
                    ],
                ],
            ])
    }

    @Test("with a topic, only devices of that topic are pushed")
    func topicFilter() async throws {
        let devices = InMemoryDeviceRepository()
        _ = try await devices.register(
            token: DropFixture.token(user: 2, device: 0), topic: "app", userID: "u2",
            environment: "production", now: now)
        _ = try await devices.register(
            token: DropFixture.token(user: 2, device: 1), topic: "other", userID: "u2",
            environment: "production", now: now)
        let rows = try await MateRequestPushes(devices: devices, topic: "app").recipients(["u2"]).rows(for: [notice()], at: now)
        #expect(rows.map(\.topic) == ["app"] && rows.map(\.pushID) == ["d1.peer"])
    }

    @Test(
        "the request payload written straight is byte for byte the one APNSPayload encodes",
        arguments: [
            ProfileCard(name: "Jimin", dogName: "Bori"),
            ProfileCard(name: "Jimin", dogName: "Bori", breed: "Maltese", age: 4, imageURL: "https://example.com/bori.jpg"),
            ProfileCard(
                name: "지민 \"J\"", dogName: "보리\\\n", breed: "진돗개", age: 0, bio: "line\u{1}\ttab", imageURL: "x"),
        ])
    func encodedRequestMatchesThePayload(card: ProfileCard) throws {
        var sample = notice()
        sample.senderCard = card
        sample.request = MateRequestRecord(
            id: "d\"9.initiator", dropID: "d\"9", senderID: "u\\1", recipientID: "u2", createdAt: now)
        let written = MateRequestPayload.encodedRequest(sample)
        #expect(written == MateRequestPayload.request(sample).encoded())
        let parsed = try JSONValue.parse(written)
        #expect(parsed["mate_request"]?["from"]?["card"]?["name"]?.stringValue == card.name)
    }

    @Test("a payload with the largest card the store accepts fits in 4 KB")
    func payloadSize() throws {
        var big = notice()
        big.senderCard = ProfileCard(
            name: String(repeating: "가", count: 50), dogName: String(repeating: "나", count: 50),
            breed: String(repeating: "다", count: 50), age: 40,
            bio: String(repeating: "\"", count: 300),
            imageURL: "https://" + String(repeating: "x", count: 500))
        let size = MateRequestPayload.request(big).byteCount
        #expect(size <= PushType.alert.maxPayloadBytes)
    }
}
