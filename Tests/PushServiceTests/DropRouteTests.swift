import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import TestSupport
import Testing

@Suite("profile drops over HTTP")
struct DropRouteTests {
    @Test("pending → matched → mate requests listed and pushed; busy 409; condition 422; answers; cancel")
    func dropFlow() async throws {
        // A window far longer than the test: its matched drop must still be in it when it is cancelled, however
        // slowly a loaded machine runs the steps between (the window's end is ProfileDropTests' subject).
        let harness = try await ServiceHarness.start(configure: { $0.dropWindow = .seconds(600) })
        let client = harness.client
        let annaToken = try await harness.addUser("anna", dog: "Bello")
        let benToken = try await harness.addUser("ben", dog: "Fido")
        try await harness.addUser("cleo")

        let pending = try await client.send("POST", "/v1/drops", json: ["user_id": "anna", "peer_id": "ben", "distance_m": 0.2])
        #expect(pending.status == 201)
        #expect(pending.json?["state"]?.stringValue == "pending")
        let dropID = try #require(pending.json?["drop"]?["id"]?.stringValue)

        let repeated = try await client.send("POST", "/v1/drops", json: ["user_id": "anna", "peer_id": "ben", "distance_m": 0.1])
        #expect(repeated.status == 201)
        #expect(repeated.json?["drop"]?["id"]?.stringValue == dropID)

        let busy = try await client.send("POST", "/v1/drops", json: ["user_id": "cleo", "peer_id": "anna", "distance_m": 0.1])
        #expect(busy.status == 409)
        #expect(busy.errorCode == "busy")

        let tooFar = try await client.send("POST", "/v1/drops", json: ["user_id": "ben", "peer_id": "anna", "distance_m": 0.5])
        #expect(tooFar.status == 422)
        #expect(tooFar.errorCode == "condition_not_met")
        let offAxis = try await client.send(
            "POST", "/v1/drops",
            json: [
                "user_id": "ben", "peer_id": "anna", "distance_m": 0.1, "direction": ["x": 1, "y": 0, "z": 0],
            ])
        #expect(offAxis.status == 422)

        let status = try await client.send("GET", "/v1/users/ben/drop")
        #expect(status.json?["state"]?.stringValue == "pending")

        let matched = try await client.send(
            "POST", "/v1/drops",
            json: [
                "user_id": "ben", "peer_id": "anna", "distance_m": 0.1, "direction": ["x": 0, "y": 0.1, "z": -1],
            ])
        #expect(matched.status == 200)
        #expect(matched.json?["state"]?.stringValue == "matched")
        let requests = try #require(matched.json?["mate_requests"]?.arrayValue)
        #expect(requests.count == 2)

        try await awaitEvent("2 notifications accepted by the mock") { [mock = harness.mock] in await mock.waitForAccepted(count: 2) }
        let records = harness.mock.records()
        #expect(Set(records.map(\.token)) == [annaToken, benToken])
        for record in records {
            #expect(record.header("apns-collapse-id") == dropID)
            #expect(try JSONValue.parse(record.payload)["aps"]?["category"]?.stringValue == "MATE_REQUEST")
        }

        let listed = try await client.send("GET", "/v1/users/ben/mate-requests?role=recipient")
        let toBen = try #require(listed.json?["mate_requests"]?.arrayValue)
        #expect(toBen.count == 1)
        let requestID = try #require(toBen.first?["id"]?.stringValue)
        #expect(toBen.first?["sender_id"]?.stringValue == "anna")

        let notRecipient = try await client.send("POST", "/v1/mate-requests/\(requestID)/accept", json: ["user_id": "anna"])
        #expect(notRecipient.status == 403)
        let accepted = try await client.send("POST", "/v1/mate-requests/\(requestID)/accept", json: ["user_id": "ben"])
        #expect(accepted.status == 200)
        #expect(accepted.json?["state"]?.stringValue == "accepted")
        let second = try await client.send("POST", "/v1/mate-requests/\(requestID)/decline", json: ["user_id": "ben"])
        #expect(second.status == 409)
        try await awaitEvent("3 notifications accepted by the mock") { [mock = harness.mock] in await mock.waitForAccepted(count: 3) }
        #expect(harness.mock.records().last?.token == annaToken)

        let cancelMatched = try await client.send("DELETE", "/v1/users/anna/drop")
        #expect(cancelMatched.status == 409)
        #expect(cancelMatched.errorCode == "already_matched")
        let nothing = try await client.send("DELETE", "/v1/users/cleo/drop")
        #expect(nothing.status == 404)

        let cleoPending = try await client.send("POST", "/v1/drops", json: ["user_id": "cleo", "peer_id": "ben", "distance_m": 0])
        #expect(cleoPending.status == 201)
        let cancelled = try await client.send("DELETE", "/v1/users/ben/drop")
        #expect(cancelled.status == 200)
        #expect(cancelled.json?["state"]?.stringValue == "cancelled")
        #expect(try await client.send("GET", "/v1/users/cleo/drop").status == 404)
        await harness.stop()
    }
}
