import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushStore
import Testing

/// `push_resends_total{cause}`: re-sends after an unknown outcome (a reset, a kill) apart from retries
/// after a retryable answer, and never more of them than were in flight.
@Suite("Re-send accounting after resets and kills")
struct ResendAccountingTests {
    @Test("a kill: the rows it left in flight, and only those, are re-sent with cause outcome_unknown")
    func killLeavesOnlyInFlightRowsToResend() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-resend-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = PushServiceConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.apiKeys = [try APIKey(name: "test", secret: "k")]
        configuration.topic = ServiceHarness.topic
        do {
            // What a killed server leaves: 30 rows stored, 10 of them claimed (in flight), none completed.
            let store = try await configuration.openRepositories()
            let now = Date()
            let items = (0..<30).map { index in
                OutboxItem(
                    pushID: "push-\(index)", token: try! DeviceToken(String(format: "%064x", index + 1)),
                    topic: ServiceHarness.topic, pushType: .alert, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8),
                    environment: .development, now: now)
            }
            try await store.outbox.enqueue(items)
            #expect(try await store.outbox.claim(limit: 10, now: now).items.count == 10)
        }
        let sender = FlakySender(failures: 0)
        let server = try await PushServer.start(
            configuration: configuration, senders: PushSenders(production: sender, development: sender), logger: .silent)
        let text = server.metrics.prometheusText(outboxCounts: [:], extra: "")
        await server.shutdown(deadline: .seconds(2))
        #expect(text.contains(#"push_resends_total{cause="outcome_unknown"} 10"#), "\(text)")
        #expect(text.contains(#"push_resends_total{cause="retryable_rejection"} 0"#))
    }

    @Test("resets and 429/503: retryable answers counted apart; re-sends after a reset bounded by the streams it cut")
    func resetsAndRejectionsCountedApart() async throws {
        let harness = try await ServiceHarness.start(configureMock: {
            $0.abruptCloseEveryStreams = 700
            $0.faultRates = MockFaultRates(tooManyRequests: 0.01, serviceUnavailable: 0.01)
            $0.latency = .jitter(min: .zero, max: .milliseconds(5))
        })
        let total = 3_000
        let posts = (0..<(total / 100)).map { post in
            (0..<100).map { JSONValue.string(String(format: "%064x", post * 100 + $0 + 1)) }
        }
        await withTaskGroup(of: Void.self) { group in
            for tokens in posts {
                group.addTask {
                    let response = try? await harness.client.send(
                        "POST", "/v1/pushes?wait=true", json: ["tokens": .array(tokens), "alert": "hi"])
                    #expect(response?.status == 200)
                }
            }
        }
        let metrics = harness.server.metrics
        let text = metrics.prometheusText(outboxCounts: [:], extra: "")
        func resends(_ cause: String) -> Int {
            let prefix = #"push_resends_total{cause=""# + cause + #""} "#
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? -1
        }
        let counters = harness.mock.counters()
        let records = harness.mock.records()
        await harness.stop()

        let retryable = (counters.rejectedByReason[.tooManyRequests] ?? 0) + (counters.rejectedByReason[.serviceUnavailable] ?? 0)
        #expect(retryable > 0 && counters.aborts > 0)
        // A reset cuts at most the streams open on that connection.
        let unknown = resends("outcome_unknown")
        #expect(unknown > 0 && unknown <= counters.aborts * 1000, "\(unknown) after \(counters.aborts) resets")
        // Each 429/503 that reached push-server is a retry after a retryable answer; the mock also counts
        // those it decided on a connection it then reset (never answered: their outcome is unknown).
        let rejectionRetries = resends("retryable_rejection")
        #expect(rejectionRetries <= retryable && rejectionRetries >= retryable - unknown, "\(rejectionRetries) of \(retryable)")
        #expect(resends("not_sent") >= 0)
        // Only those may have been delivered twice.
        var accepted: [String: Int] = [:]
        for record in records where record.isAccepted { accepted[record.token, default: 0] += 1 }
        #expect(accepted.count == total)
        #expect(accepted.values.reduce(0) { $0 + $1 - 1 } <= unknown)
    }
}
