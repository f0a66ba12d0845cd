import APNSCore
import PushHTTP
import PushHTTP2
import PushIO
import PushSync
import TestSupport
import Testing

@testable import APNSMock

/// The `acceptAll` fast path with a latency: its answers wait, each from its request's arrival, on one timer
/// per connection; without a latency it answers at once as before.
@Suite("Mock APNs fast path: the latency knob")
struct MockAPNSFastLatencyTests {
    @Test("accept-all with a latency answers no earlier than it, echoing the id; requests sent together each wait it whole")
    func answersAfterTheLatency() async throws {
        let latency = Duration.milliseconds(150)
        try await withFixture(configure: {
            $0.acceptAll = true
            $0.latency = .fixed(latency)
        }) { fixture in
            let connection = try fixture.connection()
            let clock = ContinuousClock()
            let given = "0c6c4a52-7f1e-4c8a-9d3b-2a61c1f0e9b7"
            var sent = clock.now
            let answer = try await respond(connection, apnsRequest(extraHeaders: [(APNSHeader.id, given)]))
            #expect(clock.now - sent >= latency)
            #expect(answer.status == 200)
            #expect(answer.header(APNSHeader.id) == given)
            #expect(answer.header(APNSHeader.uniqueID).map(APNSID.isValid) == true)
            // Ten requests in one or a few reads: each answer waits its whole latency; the streams stay open at once.
            sent = clock.now
            let results = await sendBatch(connection, (0..<10).map { _ in apnsRequest() })
            #expect(clock.now - sent >= latency)
            #expect(results.allSatisfy { (try? $0.get().status) == 200 })
            #expect(results.allSatisfy { (try? $0.get().header(APNSHeader.id).map(APNSID.isValid)) == true })
            #expect(fixture.server.maxObservedConcurrentStreams == 10)
            #expect(fixture.server.records().isEmpty)
        }
    }

    @Test("accept-all without a latency answers at once, while an answer sent under a 60 s latency still waits")
    func zeroLatencyAnswersAtOnce() async throws {
        try await withFixture(configure: {
            $0.acceptAll = true
            $0.latency = .fixed(.seconds(60))
            $0.closeAfterGoAway = .milliseconds(1)
        }) { fixture in
            let connection = try fixture.connection()
            let answered = PThreadLock(false)
            let first = Task {
                let result = await send(connection, apnsRequest())
                answered.withLock { $0 = true }
                return result
            }
            try await awaitEvent("the first request counted by the mock") { [mock = fixture.server] in
                await mock.waitForAccepted(count: 1)
            }
            fixture.server.updateKnobs { $0.latency = .none }
            #expect(try await respond(connection, apnsRequest()).status == 200)
            #expect(answered.withLock { $0 } == false)
            // The close that follows a GOAWAY sends the waiting answer.
            _ = fixture.server.goAwayAll()
            #expect((try? await first.value.get().status) == 200)
        }
    }

    @Test("accept-all: the close after a GOAWAY sends the answers still waiting for their latency")
    func closeAfterGoAwayAnswersWaiting() async throws {
        try await withFixture(configure: {
            $0.acceptAll = true
            $0.latency = .fixed(.seconds(60))
            $0.goAwayAfterStreams = 1
            $0.closeAfterGoAway = .milliseconds(100)
        }) { fixture in
            let connection = try fixture.connection()
            let clock = ContinuousClock()
            let sent = clock.now
            #expect(try await respond(connection, apnsRequest()).status == 200)
            #expect(clock.now - sent < .seconds(60))
            try await fixture.watcher(for: connection).closed()
        }
    }

    @Test("accept-all: a reset names the answer waiting for its latency as owed")
    func resetNamesWaitingAnswers() async throws {
        try await withFixture(configure: {
            $0.acceptAll = true
            $0.abruptCloseAfterStreams = 2
        }) { fixture in
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest()).status == 200)
            _ = fixture.server.updateKnobs { $0.latency = .fixed(.seconds(60)) }
            // Stream 3 waits for its answer; stream 5 meets the reset.
            let results = await sendBatch(connection, [apnsRequest(), apnsRequest()])
            #expect(results.allSatisfy { (try? $0.get()) == nil })
            let reset = try #require(fixture.server.resets().first)
            #expect(reset.owedStreamIDs == [3])
        }
    }

    @Test("the queue: due order whatever the arrival order, nothing taken before its time, echoed ids kept")
    func queueOrder() {
        var queue = MockAPNSFastDelayedAnswers()
        let start = ContinuousClock.now
        let id = Array("0c6c4a52-7f1e-4c8a-9d3b-2a61c1f0e9b7".utf8)
        let at = { (ms: Int) in start + .milliseconds(ms) }
        var earliest: [Bool] = []
        earliest.append(queue.add(streamID: 1, due: at(30), broadcast: false, withUniqueID: false, echoed: nil))
        earliest.append(queue.add(streamID: 3, due: at(50), broadcast: true, withUniqueID: true, echoed: nil))
        // Due before the earliest (a jittered latency): the new earliest, the timer is armed again.
        earliest.append(id.withUnsafeBytes { queue.add(streamID: 5, due: at(10), broadcast: false, withUniqueID: false, echoed: $0) })
        earliest.append(queue.add(streamID: 7, due: at(40), broadcast: false, withUniqueID: false, echoed: nil))
        #expect(earliest == [true, false, true, false])
        #expect(queue.streamIDs == [5, 1, 7, 3])
        #expect(queue.nextDue == at(10))
        let early = queue.takeDue(now: at(9))
        #expect(early == nil)
        let first = queue.takeDue(now: at(10))
        #expect(first?.streamID == 5)
        #expect(first?.withEchoedID { $0.map { Array($0) } } == id)
        let again = queue.takeDue(now: at(10))
        #expect(again == nil)
        var taken: [Int32] = []
        while let answer = queue.takeDue(now: at(45)) { taken.append(answer.streamID) }
        #expect(taken == [1, 7])
        #expect(queue.nextDue == at(50))
        let last = queue.takeAll()
        #expect(last.map(\.streamID) == [3])
        #expect(last.first?.broadcast == true)
        #expect(last.first?.withEchoedID { $0 == nil } == true)
        #expect(queue.isEmpty && queue.nextDue == nil)
    }

    @Test("the queue over many answers: what went out is forgotten, the rest kept in order")
    func queueCompacts() {
        var queue = MockAPNSFastDelayedAnswers()
        let start = ContinuousClock.now
        for stream in 0..<3_000 {
            _ = queue.add(streamID: Int32(stream), due: start + .microseconds(stream), broadcast: false, withUniqueID: false, echoed: nil)
        }
        var taken: [Int32] = []
        while let answer = queue.takeDue(now: start + .microseconds(2_499)) { taken.append(answer.streamID) }
        #expect(taken == (0..<2_500).map(Int32.init))
        #expect(queue.streamIDs == (2_500..<3_000).map(Int32.init))
    }
}
