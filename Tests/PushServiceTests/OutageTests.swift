import APNSCore
import Foundation
import JSON
import PushService
import Testing

/// A sender whose transport fails for the first `failures` sends, then accepts everything.
actor FlakySender: APNSSender {
    private var failuresLeft: Int
    private(set) var calls = 0

    init(failures: Int) { failuresLeft = failures }

    struct Outage: Error {}

    func send(_ notification: APNSNotification) async throws -> APNSOutcome {
        calls += 1
        if failuresLeft > 0 {
            failuresLeft -= 1
            throw Outage()
        }
        return .accepted(apnsID: notification.apnsID ?? APNSID.generate(), uniqueID: nil)
    }
}

@Suite("APNs outage")
struct OutageTests {
    @Test("transport failures keep the notification queued and retry it with backoff until APNs is back")
    func ridesOutOutage() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-outage-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = PushServiceConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.apiKeys = [try APIKey(name: "test", secret: "k")]
        configuration.topic = "com.example.sniffmeet"
        configuration.retryBaseDelay = .milliseconds(10)
        configuration.retryTick = .milliseconds(20)
        configuration.waitTimeout = .seconds(30)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let sender = FlakySender(failures: 3)
        let server = try await PushServer.start(
            configuration: configuration,
            senders: PushSenders(production: sender, development: sender),
            logger: .silent)
        let client = TestHTTPClient(port: server.port, apiKey: "k")
        let response = try await client.send(
            "POST", "/v1/pushes?wait=true",
            json: [
                "tokens": .array([.string(ServiceHarness.randomToken())]), "alert": "hi",
            ])
        #expect(response.status == 200)
        #expect(response.json?["notifications"]?[0]?["state"]?.stringValue == "accepted")
        #expect(response.json?["notifications"]?[0]?["attempts"]?.intValue == 4)
        #expect(await sender.calls == 4)
        #expect(server.metrics.pushCount(outcome: "retry") == 3)
        // The sender's failures say nothing of the notifications' fate: each re-send is after an unknown outcome.
        let text = server.metrics.prometheusText(outboxCounts: [:], extra: "")
        #expect(text.contains(#"push_resends_total{cause="outcome_unknown"} 3"#))
        #expect(text.contains(#"push_resends_total{cause="not_sent"} 0"#))
        #expect(text.contains(#"push_resends_total{cause="retryable_rejection"} 0"#))
        await server.shutdown(deadline: .seconds(2))
    }
}
