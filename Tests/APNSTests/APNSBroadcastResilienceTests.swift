import APNS
import APNSCore
import APNSMock
import Foundation
import Testing

@Suite("Broadcast under GOAWAY and 429: nothing lost")
struct APNSBroadcastResilienceTests {
    @Test("GOAWAY every 7 requests and 30 % 429: every broadcast is answered 200 in the end, each once")
    func nothingLost() async throws {
        try await withBroadcast(configureServer: { $0.goAwayAfterStreams = 7 }) { fixture in
            let channel = try await fixture.makeChannel(.mostRecentMessageStored)
            fixture.server.updateKnobs { $0.faultRates = MockFaultRates(tooManyRequests: 0.3) }
            let ids = (0..<60).map { _ in APNSID.generate() }
            var pending = Set(ids.indices)
            var throttled = 0
            var unknownOutcomes = 0
            var rounds = 0
            // The test's own retry loop: a 429 (or any retryable answer) and a transport failure are sent again.
            while !pending.isEmpty, rounds < 100 {
                rounds += 1
                let push = fixture.push
                let results = await withTaskGroup(of: (Int, Result<APNSOutcome, any Error>).self) { group in
                    for index in pending {
                        let request = broadcast(channel, requestID: ids[index])
                        group.addTask {
                            do { return (index, .success(try await push.send(request))) } catch { return (index, .failure(error)) }
                        }
                    }
                    var collected: [(Int, Result<APNSOutcome, any Error>)] = []
                    for await result in group { collected.append(result) }
                    return collected
                }
                for (index, result) in results {
                    switch result {
                    case .success(.accepted):
                        pending.remove(index)
                    case .success(.rejected(let rejection)):
                        #expect(rejection.reason.isRetryable, "\(rejection)")
                        throttled += 1
                    case .failure(let error):
                        // Never processed (the client's own resends ran out): safe to send again. Outcome
                        // unknown: APNs may have taken it, so it may be taken twice.
                        let kind = (error as? APNSTransportError)?.kind
                        #expect(kind == .notSent || kind == .outcomeUnknown, "\(error)")
                        if kind == .outcomeUnknown { unknownOutcomes += 1 }
                    }
                }
            }
            #expect(pending.isEmpty, "still pending after \(rounds) rounds: \(pending.count)")
            #expect(throttled > 0)
            #expect(fixture.server.counters().goAwaysSent > 0)
            let accepted = fixture.server.broadcasts(channelID: channel).filter(\.isAccepted).map(\.apnsID)
            #expect(Set(accepted) == Set(ids))
            // Only a broadcast whose answer was lost may have been taken twice.
            #expect(accepted.count <= ids.count + unknownOutcomes)
        }
    }
}
