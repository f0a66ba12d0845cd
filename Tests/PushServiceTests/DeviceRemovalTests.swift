import Foundation
import JSON
import Testing

/// `DELETE /v1/devices/{token}` removes what `POST /v1/devices` registered, whatever its kind: a registered
/// resource that the API cannot remove is one the contract run ("created, then not found") refuses.
@Suite("device removal through the REST API", .serialized)
struct DeviceRemovalTests {
    @Test("an APNs token, a push-to-start token and a Live Activity token are each removed, then gone")
    func everyKindIsRemoved() async throws {
        try await ChannelHarness.run { harness in
            let kinds: [(kind: String, extra: [String: JSONValue])] = [
                ("apns", [:]), ("push_to_start", ["attributes_type": "WalkAttributes"]), ("live_activity", ["activity_id": "walk-9"]),
            ]
            for (kind, extra) in kinds {
                let token = ServiceHarness.randomToken()
                var body: [String: JSONValue] = [
                    "token": .string(token), "user_id": "remover", "environment": "development", "kind": .string(kind),
                ]
                for (key, value) in extra { body[key] = value }
                let created = try await harness.client.send("POST", "/v1/devices", json: .object(body))
                #expect(created.status == 201, "\(kind): \(String(decoding: created.body, as: UTF8.self))")
                let removed = try await harness.client.send("DELETE", "/v1/devices/\(token)")
                #expect(removed.status == 204, "\(kind): \(String(decoding: removed.body, as: UTF8.self))")
                let listed = try await harness.client.send("GET", "/v1/users/remover/devices")
                let tokens = listed.json?["devices"]?.arrayValue?.compactMap { $0["token"]?.stringValue } ?? []
                #expect(listed.status == 200 && !tokens.contains(token), "\(kind) still listed: \(tokens)")
                let again = try await harness.client.send("DELETE", "/v1/devices/\(token)")
                #expect(again.status == 404 && again.json?["error"]?["code"]?.stringValue == "unknown_device", "\(kind)")
            }
        }
    }
}
