import APNSCore
import APNSMock
import JSON
import PushService
import Testing

@Suite("pushes that expire before they are sent")
struct ExpiredPushTests {
    @Test("?wait=true answers as soon as an expired notification is final, and /metrics counts it")
    func waitEndsOnExpiry() async throws {
        // The harness waits up to 120 s: a wait that missed the expiry would end only then, incomplete.
        let harness = try await ServiceHarness.start()
        let body: JSONValue = [
            "tokens": .array([.string(ServiceHarness.randomToken())]), "alert": "too late",
            "expiration": 44_802,
        ]
        let answer = try await harness.client.send("POST", "/v1/pushes?wait=true", json: body)
        #expect(answer.status == 200)
        #expect(answer.json?["complete"] == true)
        #expect(answer.json?["counts"]?["expired"] == 1)
        #expect(answer.json?["notifications"]?[0]?["reason"]?.stringValue == "Expired")
        #expect(harness.mock.counters().streams == 0, "an expired notification is never sent")
        let metrics = String(decoding: try await harness.client.send("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"push_notifications_total{outcome="expired",reason="Expired"} 1"#))
        await harness.stop()
    }
}
