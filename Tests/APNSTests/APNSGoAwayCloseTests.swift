import APNS
import APNSCore
import APNSMock
import PushSync
import Testing

@Suite("APNs client against a server that closes soon after GOAWAY")
struct APNSGoAwayCloseTests {
    @Test("GOAWAY every 1,000 streams, close 0.5 s later, 1% 429 + 1% 503 with the stream limit flipping to 1: every 200 reaches the caller")
    func everyAnswerArrives() async throws {
        try await withClient(
            configureServer: {
                $0.goAwayAfterStreams = 1000
                $0.closeAfterGoAway = .milliseconds(500)
                $0.latency = .jitter(min: .zero, max: .seconds(1))
                $0.dropStreamLimitAfterRejection = true
                $0.faultRates = MockFaultRates(tooManyRequests: 0.01, serviceUnavailable: 0.01)
            },
            configureClient: { $0.requestTimeout = .seconds(30) }
        ) { fixture in
            let count = 5000
            let tokens = (0..<count).map { token($0) }
            let results = await sendBatch(fixture.client, tokens.map { alert($0) })
            var answeredByClient: [String: String] = [:]
            for (index, result) in results.enumerated() {
                switch result {
                case .success(.accepted): answeredByClient[tokens[index].hex] = "200"
                case .success(.rejected(let rejection)): answeredByClient[tokens[index].hex] = "\(rejection.status)"
                case .failure(let error): answeredByClient[tokens[index].hex] = "failed:\(error.kind.rawValue)"
                }
            }
            var accepted: [String: Int] = [:]
            for record in fixture.server.records() where record.isAccepted { accepted[record.token, default: 0] += 1 }
            let lost = accepted.keys.filter { answeredByClient[$0] != "200" }.sorted()
            let lostKinds = Dictionary(grouping: lost, by: { answeredByClient[$0] ?? "none" }).mapValues(\.count)
            #expect(lost.isEmpty, "answered 200 by the server but not accepted by the client: \(lost.count) \(lostKinds), first \(lost.prefix(3))")
            #expect(accepted.values.allSatisfy { $0 == 1 })
            #expect(fixture.server.maxObservedConcurrentStreams <= 1000)
            #expect(fixture.server.counters().goAwaysSent >= 4)
        }
    }
}

/// Sends `notifications` as one batch (the outbox worker's way) and waits for every result, in order.
func sendBatch(_ client: APNSClient, _ notifications: [APNSNotification]) async -> [Result<APNSOutcome, APNSTransportError>] {
    let collected = PThreadLock<[Int: Result<APNSOutcome, APNSTransportError>]>([:])
    let stream = AsyncStream<Int>.makeStream()
    await client.send(batch: notifications) { chunk in
        let total = collected.withLock { results -> Int in
            for result in chunk { results[result.index] = result.result }
            return results.count
        }
        stream.continuation.yield(total)
    }
    for await total in stream.stream where total == notifications.count { break }
    let results = collected.withLock { $0 }
    return (0..<notifications.count).map { results[$0]! }
}
