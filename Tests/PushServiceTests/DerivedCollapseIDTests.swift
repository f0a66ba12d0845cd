import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushTLS
import Testing

/// A notification without a collapse id of its own goes out with one derived from its row id, the same on
/// every attempt, so a resend after an unknown outcome replaces the first copy on the device.
@Suite("Derived apns-collapse-id")
struct DerivedCollapseIDTests {
    /// Posts one push to `tokens` and waits for the outcomes; returns row id → token from the answer.
    static func post(_ harness: ServiceHarness, _ tokens: [String], extra: [String: JSONValue] = [:]) async throws -> [String: String] {
        var body: [String: JSONValue] = ["tokens": .array(tokens.map { .string($0) }), "alert": "hi"]
        body.merge(extra) { _, new in new }
        let response = try await harness.client.send("POST", "/v1/pushes?wait=true", json: .object(body))
        #expect(response.status == 200, "\(response.text)")
        var ids: [String: String] = [:]
        for notification in response.json?["notifications"]?.arrayValue ?? [] {
            #expect(notification["state"]?.stringValue == "accepted", "\(response.text)")
            if let id = notification["id"]?.stringValue, let token = notification["token"]?.stringValue { ids[id] = token }
        }
        #expect(ids.count == tokens.count, "\(response.text)")
        return ids
    }

    @Test("on by default: each notification carries exactly its own row id as apns-collapse-id")
    func derivedByDefault() async throws {
        let harness = try await ServiceHarness.start()
        let tokens = [ServiceHarness.randomToken(), ServiceHarness.randomToken()]
        let ids = try await Self.post(harness, tokens)
        for (id, token) in ids {
            let records = harness.mock.records(matching: .init(token: token))
            #expect(records.count == 1)
            #expect(records.map(\.collapseID) == [id])
            #expect(records.first.map { Array($0.collapseID?.utf8 ?? "".utf8) } == Array(id.utf8))
        }
        await harness.stop()
    }

    @Test("off (outbox.derive_collapse_id false): no apns-collapse-id is sent")
    func offSendsNone() async throws {
        let harness = try await ServiceHarness.start(configure: { $0.derivesCollapseID = false })
        let token = ServiceHarness.randomToken()
        _ = try await Self.post(harness, [token])
        let records = harness.mock.records(matching: .init(token: token))
        #expect(records.count == 1)
        #expect(records.allSatisfy { $0.collapseID == nil && !$0.headers.contains { $0.name == APNSHeader.collapseID } })
        await harness.stop()
    }

    @Test("a push with its own collapse id keeps it, setting on or off")
    func ownCollapseIDKept() async throws {
        for derives in [true, false] {
            let harness = try await ServiceHarness.start(configure: { $0.derivesCollapseID = derives })
            let token = ServiceHarness.randomToken()
            _ = try await Self.post(harness, [token], extra: ["collapse_id": "walk-42"])
            let records = harness.mock.records(matching: .init(token: token))
            #expect(records.map(\.collapseID) == ["walk-42"])
            await harness.stop()
        }
    }

    @Test("a notification answered 500, then 503, then 200 carries the same derived collapse id on all three attempts")
    func retriedKeepsTheSameCollapseID() async throws {
        let harness = try await ServiceHarness.start()
        let token = ServiceHarness.randomToken()
        _ = harness.mock.addRule(MockAPNSRule(match: .init(token: token), answer: .reject(.internalServerError), times: 1))
        _ = harness.mock.addRule(MockAPNSRule(match: .init(token: token), answer: .reject(.serviceUnavailable), times: 1))
        let ids = try await Self.post(harness, [token])
        let records = harness.mock.records(matching: .init(token: token))
        await harness.stop()
        let id = try #require(ids.keys.first)
        #expect(records.map { $0.rejection?.status ?? 200 } == [500, 503, 200])
        #expect(records.map(\.collapseID) == [id, id, id])
    }

    @Test("the derived id: the row id when it is 1-64 printable ASCII bytes, else the SHA-256 hex of it (64 bytes)")
    func derivation() {
        let uuid = "018f3c1e-7a2b-7c4d-9e8f-0a1b2c3d4e5f"
        #expect(DerivedCollapseID.of(uuid) == uuid)
        let sixtyFour = String(repeating: "a", count: 64)
        #expect(DerivedCollapseID.of(sixtyFour) == sixtyFour)
        let long = String(repeating: "a", count: 65)
        #expect(DerivedCollapseID.of(long) == SHA256Digest.hex(of: long))
        #expect(DerivedCollapseID.of(long).utf8.count == 64)
        #expect(DerivedCollapseID.of("has space") == SHA256Digest.hex(of: "has space"))
        #expect(DerivedCollapseID.of("hund-ä") == SHA256Digest.hex(of: "hund-ä"))
    }
}
