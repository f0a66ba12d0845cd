import APNSCore
import PushHTTP
import PushHTTP2
import TestSupport
import Testing

@testable import APNSMock

/// What a reset record names as owed: the decided requests whose answers the client had not received.
@Suite("Mock APNs resets: the answers still owed when the connection was reset")
struct MockAPNSResetRecordTests {
    @Test("answers given but not yet written are owed; written ones are owed until the client has them")
    func undeliveredAnswers() {
        var answers = MockAPNSUndeliveredAnswers()
        answers.answered(1)
        answers.answered(3)
        // Not written yet: owed whatever the socket holds.
        #expect(answers.owed(total: 0, undelivered: 0) == [1, 3])
        answers.wrote(upTo: 100, undelivered: 100)
        // Written, ending at byte 100: owed while the last byte may not have reached the client.
        #expect(answers.owed(total: 100, undelivered: 100) == [1, 3])
        #expect(answers.owed(total: 100, undelivered: 1) == [1, 3])
        #expect(answers.owed(total: 100, undelivered: 0).isEmpty)
        answers.answered(5)
        answers.wrote(upTo: 150, undelivered: 50)
        // The first write is delivered (100 ≤ 150 - 50), the second is not.
        #expect(answers.owed(total: 150, undelivered: 50) == [5])
        #expect(answers.owed(total: 150, undelivered: 0).isEmpty)
        answers.answered(7)
        #expect(answers.owed(total: 150, undelivered: 0) == [7])
    }

    @Test("many writes: delivered answers are forgotten, undelivered ones still named")
    func forgetsDelivered() {
        var answers = MockAPNSUndeliveredAnswers()
        for stream in stride(from: Int32(1), through: 1_999, by: 2) {
            answers.answered(stream)
            answers.wrote(upTo: Int(stream) * 10, undelivered: 25)
        }
        // The last write ended at byte 19,990 with 25 bytes undelivered: the answers ending after 19,965.
        #expect(answers.owed(total: 19_990, undelivered: 25) == [1_997, 1_999])
    }

    @Test("a reset names the answer waiting for its latency as owed, not the one the client had already read")
    func resetRecordsOwedAnswers() async throws {
        try await withFixture(configure: { $0.abruptCloseAfterStreams = 2 }) { fixture in
            let connection = try fixture.connection()
            // Stream 1: answered at once and read by the client.
            #expect(try await respond(connection, apnsRequest()).status == 200)
            _ = fixture.server.updateKnobs { $0.latency = .fixed(.seconds(60)) }
            // Stream 3 is decided and waits for its answer; stream 5 meets the reset.
            let results = await sendBatch(connection, [apnsRequest(), apnsRequest()])
            #expect(results.allSatisfy { (try? $0.get()) == nil })
            let resets = fixture.server.resets()
            #expect(resets.count == 1)
            let records = fixture.server.records()
            #expect(records.map(\.streamID) == [1, 3])
            let reset = try #require(resets.first)
            #expect(reset.connectionID == records[0].connectionID)
            #expect(reset.owedStreamIDs == [3])
            #expect(reset.owed(streamID: 3) && !reset.owed(streamID: 1))
            #expect(reset.unacknowledgedBytes != nil && reset.unsentBytes != nil)
        }
    }
}
