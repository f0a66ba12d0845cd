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

    @Test(
        "a reset with 30 answers owed and 3 × 429, 2 × 503 after it: exactly 30 re-sent as outcome_unknown, 5 as retryable_rejection, none as not_sent"
    )
    func resetsAndRejectionsCountedExactly() async throws {
        // The first connection carries 20 answered notifications, then 30 whose answers the mock holds; the
        // 50th request (the last of those 30) resets it. So exactly 30 were on the wire unanswered: 29 decided
        // (accepted, answer held) and one cut before it was decided.
        let answered = 20
        let held = 30
        let harness = try await ServiceHarness.start(configureMock: { $0.abruptCloseAfterStreams = answered + held - 1 })
        func tokens(_ range: Range<Int>) -> [String] { range.map { String(format: "%064x", $0 + 1) } }
        func post(_ tokens: [String]) async throws -> TestHTTPClient.Response {
            try await harness.client.send(
                "POST", "/v1/pushes?wait=true", json: ["tokens": .array(tokens.map { .string($0) }), "alert": "hi"])
        }
        let first = try await post(tokens(0..<answered))
        #expect(first.status == 200, "\(first.text)")
        #expect(harness.mock.counters().aborts == 0)

        let second = tokens(answered..<(answered + held))
        _ = harness.mock.addRule(MockAPNSRule(answer: .accept, delay: .seconds(3_600), times: held - 1))
        // The re-sends, on the next connection (35 requests: under the reset's 50), meet these once each.
        let throttled = Array(second.prefix(3))
        let unavailable = Array(second.dropFirst(3).prefix(2))
        for token in throttled { _ = harness.mock.addRule(MockAPNSRule(match: .init(token: token), answer: .reject(.tooManyRequests), times: 1)) }
        for token in unavailable {
            _ = harness.mock.addRule(MockAPNSRule(match: .init(token: token), answer: .reject(.serviceUnavailable), times: 1))
        }
        let after = try await post(second)
        #expect(after.status == 200, "\(after.text)")
        #expect(after.json?["notifications"]?.arrayValue?.allSatisfy { $0["state"]?.stringValue == "accepted" } == true, "\(after.text)")

        let text = harness.server.metrics.prometheusText(outboxCounts: [:], extra: "")
        func resends(_ cause: String) -> Int? {
            let prefix = #"push_resends_total{cause=""# + cause + #""} "#
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
        }
        let counters = harness.mock.counters()
        let records = harness.mock.records()
        await harness.stop()

        #expect(counters.aborts == 1)
        #expect(counters.rejectedByReason == [.tooManyRequests: throttled.count, .serviceUnavailable: unavailable.count])
        #expect(resends("outcome_unknown") == held, "\(text)")
        #expect(resends("retryable_rejection") == throttled.count + unavailable.count, "\(text)")
        #expect(resends("not_sent") == 0, "\(text)")
        // Every notification accepted; twice (once unanswered) exactly the 29 whose answers the reset swallowed.
        var accepted: [String: Int] = [:]
        for record in records where record.isAccepted { accepted[record.token, default: 0] += 1 }
        #expect(Set(accepted.keys) == Set(tokens(0..<(answered + held))))
        #expect(accepted.values.filter { $0 == 2 }.count == held - 1)
        #expect(accepted.values.allSatisfy { $0 <= 2 })
    }
}
