import APNSCore
import APNSMock
import PushHTTP
import PushHTTP2
import TestSupport
import Testing

@Suite("Mock APNs server: stream limits, GOAWAY, resets, faults, idle timeout, latency, stop")
struct MockAPNSConnectionTests {
    @Test("after a rejection MAX_CONCURRENT_STREAMS drops to 1; the next success restores the initial value")
    func streamLimitDrop() async throws {
        try await withFixture(configure: {
            $0.maxConcurrentStreams = 200
            $0.dropStreamLimitAfterRejection = true
        }) { fixture in
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest()).status == 200)
            #expect(try await onLoop(connection) { connection.streamLimit } == 200)
            #expect(try await respond(connection, apnsRequest(token: "bad")).status == 400)
            #expect(try await onLoop(connection) { connection.streamLimit } == 1)
            #expect(try await respond(connection, apnsRequest(topic: "com.other.app")).status == 400)
            #expect(try await onLoop(connection) { connection.streamLimit } == 1)
            // Five queued requests go one at a time under the limit, and the first success lifts it.
            let results = await sendBatch(connection, Array(repeating: apnsRequest(), count: 5))
            #expect(results.allSatisfy { (try? $0.get().status) == 200 })
            #expect(try await onLoop(connection) { connection.streamLimit } == 200)
        }
    }

    @Test("GOAWAY after N requests, with JSON debug data; the N requests are answered, a new connection works")
    func goAwayAfterStreams() async throws {
        try await withFixture(configure: {
            $0.goAwayAfterStreams = 3
            $0.goAwayReason = .shutdown
        }) { fixture in
            let connection = try fixture.connection()
            for _ in 0..<3 { #expect(try await respond(connection, apnsRequest()).status == 200) }
            let watcher = fixture.watcher(for: connection)
            let goAway = try await watcher.firstGoAway()
            #expect(goAway.debugData == #"{"reason":"Shutdown"}"#)
            #expect(goAway.errorCode == HTTP2ErrorCode.noError)
            #expect(goAway.lastStreamID == 5)
            try await watcher.closed()
            guard case .failure(.notProcessed) = await send(connection, apnsRequest()) else {
                Issue.record("a request after GOAWAY must end notProcessed")
                return
            }
            #expect(try await respond(try fixture.connection(), apnsRequest()).status == 200)
            #expect(fixture.server.counters().goAwaysSent == 1)
            #expect(fixture.server.counters().accepted == 4)
        }
    }

    @Test("abrupt close: the first N requests are answered, request N+1 meets a TCP reset")
    func abruptClose() async throws {
        try await withFixture(configure: { $0.abruptCloseAfterStreams = 2 }) { fixture in
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest()).status == 200)
            #expect(try await respond(connection, apnsRequest()).status == 200)
            guard case .failure(.outcomeUnknown) = await send(connection, apnsRequest()) else {
                Issue.record("the request cut off by the reset must end outcomeUnknown")
                return
            }
            let counters = fixture.server.counters()
            #expect(counters.aborts == 1 && counters.accepted == 2 && counters.streams == 3)
            #expect(fixture.server.records().count == 2)
        }
    }

    @Test(
        "fault rate 1.0 turns every valid notification into that failure",
        arguments: [
            (MockFaultRates(tooManyRequests: 1), APNSRejectionReason.tooManyRequests),
            (MockFaultRates(internalServerError: 1), .internalServerError),
            (MockFaultRates(serviceUnavailable: 1), .serviceUnavailable),
        ])
    func faults(rates: MockFaultRates, reason: APNSRejectionReason) async throws {
        try await withFixture(configure: { $0.faultRates = rates }) { fixture in
            let connection = try fixture.connection()
            let response = try await respond(connection, apnsRequest())
            #expect(response.status == reason.status)
            #expect(text(response.body) == #"{"reason":"\#(reason.rawValue)"}"#)
            // Invalid requests keep their own reason: faults only replace acceptances.
            #expect(text(try await respond(connection, apnsRequest(token: "00")).body) == #"{"reason":"BadDeviceToken"}"#)
        }
    }

    @Test("fault rolls repeat for the same seed")
    func seededFaults() async throws {
        @Sendable func outcomes(seed: UInt64) async throws -> [Int] {
            try await withFixture(configure: {
                $0.faultRates = MockFaultRates(tooManyRequests: 0.2, internalServerError: 0.2, serviceUnavailable: 0.2)
                $0.randomSeed = seed
            }) { fixture in
                let connection = try fixture.connection()
                var statuses: [Int] = []
                for _ in 0..<30 { statuses.append(try await respond(connection, apnsRequest()).status) }
                return statuses
            }
        }
        let first = try await outcomes(seed: 42)
        #expect(try await outcomes(seed: 42) == first)
        #expect(Set(first).isSuperset(of: [200, 429, 500, 503]))
    }

    @Test("an idle connection is closed with GOAWAY {\"reason\":\"IdleTimeout\"}")
    func idleTimeout() async throws {
        // Long enough that a loaded machine finishes the handshake and first request before the connection counts as idle.
        try await withFixture(configure: { $0.idleTimeout = .seconds(1) }) { fixture in
            let connection = try fixture.connection()
            #expect(try await respond(connection, apnsRequest()).status == 200)
            let watcher = fixture.watcher(for: connection)
            #expect(try await watcher.firstGoAway().debugData == #"{"reason":"IdleTimeout"}"#)
            try await watcher.closed()
            #expect(fixture.server.counters().goAwaysSent == 1)
        }
    }

    @Test("with latency, answers come late and streams overlap: the server sees them open at once")
    func latency() async throws {
        try await withFixture(configure: { $0.latency = .jitter(min: .milliseconds(200), max: .milliseconds(300)) }) { fixture in
            let connection = try fixture.connection()
            let clock = ContinuousClock()
            var sent = clock.now
            #expect(try await respond(connection, apnsRequest()).status == 200)
            #expect(clock.now - sent >= .milliseconds(200))
            // Ten requests arrive in one or a few reads: each answer still waits its whole latency.
            sent = clock.now
            let results = await sendBatch(connection, (0..<10).map { _ in apnsRequest() })
            #expect(clock.now - sent >= .milliseconds(200))
            #expect(results.allSatisfy { (try? $0.get().status) == 200 })
            #expect(fixture.server.maxObservedConcurrentStreams == 10)
        }
    }

    @Test("accept-all answers 200 with an apns-id even to a bad request, counting but not recording")
    func acceptAll() async throws {
        try await withFixture(configure: { $0.acceptAll = true }) { fixture in
            let connection = try fixture.connection()
            let response = try await respond(connection, apnsRequest(token: "nonsense", topic: nil, body: []))
            #expect(response.status == 200)
            #expect(response.header(APNSHeader.id).map(APNSID.isValid) == true)
            try await awaitEvent("1 notification accepted by the mock") { [mock = fixture.server] in await mock.waitForAccepted(count: 1) }
            #expect(fixture.server.records().isEmpty)
            #expect(fixture.server.counters().streams == 1)
        }
    }

    @Test("accept-all echoes a valid apns-id (made up otherwise), answers broadcasts with apns-request-id, and sends apns-unique-id in development")
    func acceptAllIDs() async throws {
        try await withFixture(configure: { $0.acceptAll = true }) { fixture in
            let connection = try fixture.connection()
            let given = "0c6c4a52-7f1e-4c8a-9d3b-2a61c1f0e9b7"
            let echoed = try await respond(connection, apnsRequest(extraHeaders: [(APNSHeader.id, given)]))
            #expect(echoed.header(APNSHeader.id) == given)
            #expect(echoed.header(APNSHeader.uniqueID).map(APNSID.isValid) == true)
            let invalid = try await respond(connection, apnsRequest(extraHeaders: [(APNSHeader.id, "not-an-id")]))
            #expect(invalid.header(APNSHeader.id).map { APNSID.isValid($0) && $0 != "not-an-id" } == true)
            let broadcast = HTTP2Request(
                authority: "127.0.0.1", path: APNSHeader.broadcastPathPrefix + bundleID,
                headers: [(APNSHeader.requestID, given)], body: alertPayload)
            let answer = try await respond(connection, broadcast)
            #expect(answer.status == 200)
            #expect(answer.header(APNSHeader.requestID) == given)
            #expect(answer.header(APNSHeader.id) == nil)
            #expect(answer.header(APNSHeader.uniqueID).map(APNSID.isValid) == true)
        }
    }

    @Test("stop sends GOAWAY Shutdown, is idempotent, and leaves other servers running")
    func stop() async throws {
        try await withFixture { first in
            try await withFixture { second in
                #expect(first.server.port != second.server.port)
                let connection = try first.connection()
                #expect(try await respond(connection, apnsRequest()).status == 200)
                first.server.stop()
                first.server.stop()
                let watcher = first.watcher(for: connection)
                #expect(try await watcher.firstGoAway().debugData == #"{"reason":"Shutdown"}"#)
                try await watcher.closed()
                #expect(try await respond(try second.connection(), apnsRequest()).status == 200)
            }
        }
    }
}
