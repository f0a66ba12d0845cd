import APNSCore
import PushIO
import Testing

@testable import APNS

/// The pool's rules, event by event, without sockets or timers: which connection takes a request, what
/// GOAWAY does, the reconnect back-off, request deadlines, drain and shutdown.
@Suite("APNs pool state machine")
struct APNSPoolStateMachineTests {
    let first = PoolHarness.connection(0, 1)
    let second = PoolHarness.connection(1, 2)

    // MARK: stream limits

    @Test("all of the pool's connections open on the first request, and never more than its size")
    func opensUpToPoolSize() {
        var harness = PoolHarness(connections: 2)
        let opened = harness.submit(count: 10)
        #expect(opened.filter { $0.hasPrefix("open ") } == ["open 0.1", "open 1.2"])
        #expect(harness.loads == ["0.1": 5, "1.2": 5])
        _ = harness.ready(first, streamLimit: 2)
        _ = harness.ready(second, streamLimit: 2)
        let more = harness.submit(count: 20)
        #expect(!more.contains { $0.hasPrefix("open ") })
        #expect(harness.pool.currentConnections.count == 2)
    }

    @Test("a connection gets no more requests than its peer's MAX_CONCURRENT_STREAMS while another has a free stream")
    func honoursStreamLimits() throws {
        var harness = PoolHarness(connections: 2)
        _ = harness.submit()
        _ = harness.ready(first, streamLimit: 1)
        _ = harness.ready(second, streamLimit: 3)
        #expect(harness.loads == ["0.1": 1, "1.2": 0])
        for _ in 0..<3 {
            _ = harness.submit()
            for slot in harness.pool.slots {
                let connection = try #require(slot.current)
                let limit = try #require(connection.streamLimit)
                #expect(connection.load <= limit, "\(connection.id) over its limit while a stream was free")
            }
        }
        #expect(harness.loads == ["0.1": 1, "1.2": 3])
        // Both full: the least loaded one queues the next until a stream is free.
        #expect(PoolHarness.sends(in: harness.submit()) == ["send 5 on 0.1"])
        // New SETTINGS raise the first one's limit: it has free streams again and is preferred.
        _ = harness.pool.connectionHasCapacity(first, streamLimit: 10, now: harness.now)
        #expect(PoolHarness.sends(in: harness.submit()) == ["send 6 on 0.1"])
    }

    @Test("ready connections come before connecting ones, then the least loaded")
    func readyFirstThenLeastLoaded() {
        var harness = PoolHarness(connections: 2)
        _ = harness.submit()
        _ = harness.ready(second)
        #expect(PoolHarness.sends(in: harness.submit()) == ["send 2 on 1.2"])
        #expect(PoolHarness.sends(in: harness.submit()) == ["send 3 on 1.2"])
        _ = harness.ready(first)
        #expect(PoolHarness.sends(in: harness.submit()) == ["send 4 on 0.1"])
        #expect(PoolHarness.sends(in: harness.submit()) == ["send 5 on 0.1"])  // a tie: the first slot
        #expect(PoolHarness.sends(in: harness.submit()) == ["send 6 on 1.2"])
        #expect(harness.loads == ["0.1": 3, "1.2": 3])
    }

    @Test("a batch is queued on its connections and each of them is written once")
    func batchWritesEachConnectionOnce() {
        var harness = PoolHarness(connections: 2)
        let lines = harness.submit(count: 4)
        #expect(lines.filter { $0.hasPrefix("send") }.allSatisfy { $0.hasSuffix(" queued") })
        #expect(lines.filter { $0.hasPrefix("write") } == ["write 0.1", "write 1.2"])
        #expect(lines.filter { $0.hasPrefix("sweep") }.count == 1)
    }

    // MARK: GOAWAY

    @Test("GOAWAY: streams above the last stream id go out again elsewhere, those below finish, no new streams on it")
    func goAwayRetriesAboveLastStream() {
        var harness = PoolHarness(connections: 2)
        _ = harness.submit(count: 4)
        _ = harness.ready(first)
        _ = harness.ready(second)
        #expect(harness.pool.location(of: 1) == .connection(first))
        #expect(harness.pool.location(of: 3) == .connection(first))
        harness.pool.goAway(first)
        // Above the last stream id: never processed, resent on the other (ready) connection; a fresh
        // connection takes the retired one's slot.
        let retried = harness.ended(3, .notProcessed("above the server's GOAWAY last-stream-id 1"))
        #expect(retried == ["record resent", "open 0.3", "send 3 on 1.2"])
        // Below it: the answer arrives as usual.
        #expect(harness.answered(1) == [])
        // New requests never go to the retired connection.
        for _ in 0..<3 {
            let sends = PoolHarness.sends(in: harness.submit())
            #expect(sends.count == 1 && !sends[0].hasSuffix("on 0.1"))
        }
        #expect(harness.pool.slots[0].retiring == [first])
        _ = harness.closed(first)
        #expect(harness.pool.slots[0].retiring.isEmpty)
        #expect(harness.pool.slots[0].notBefore == nil)  // an orderly close is no failure
    }

    @Test("a stream the server refused is resent, up to maxResends times; a reset stream is not")
    func refusedResentResetNot() {
        var harness = PoolHarness(maxResends: 2)
        _ = harness.submit(count: 2)
        _ = harness.ready(first)
        #expect(harness.ended(1, .notProcessed("stream refused by the server")) == ["record resent", "send 1 on 0.1"])
        #expect(harness.ended(1, .notProcessed("stream refused by the server")) == ["record resent", "send 1 on 0.1"])
        #expect(harness.ended(1, .notProcessed("stream refused by the server")) == ["fail 1 notSent"])
        #expect(harness.ended(2, .outcomeUnknown("stream reset with HTTP/2 error 2")) == ["fail 2 outcomeUnknown"])
        #expect(harness.pool.liveCount == 0)
        #expect(harness.loads == ["0.1": 0])
    }

    @Test("a connection found draining before the pool heard of it: the request goes elsewhere, not counted as a resend")
    func stoppedConnectionReroutes() {
        var harness = PoolHarness(connections: 2)
        _ = harness.submit()
        _ = harness.ready(first)
        _ = harness.ready(second)
        let request = harness.makeRequest()
        let sent = PoolHarness.lines(harness.pool.submit(request, now: harness.now))
        #expect(sent == ["send 2 on 1.2"])
        let rerouted = PoolHarness.lines(harness.pool.connectionRefusedRequest(2, connection: second, now: harness.now))
        #expect(rerouted == ["send 2 on 0.1"])
        #expect(harness.loads == ["0.1": 2, "1.2": 0])
        // The stopped connection takes nothing more.
        #expect(PoolHarness.sends(in: harness.submit()) == ["send 3 on 0.1"])
    }

    // MARK: reconnect back-off

    @Test("reconnect delays double from the initial delay up to the largest, and start over after a success")
    func reconnectBackOff() {
        var harness = PoolHarness(maxResends: 10, initialReconnectDelay: .seconds(1), maxReconnectDelay: .seconds(8))
        _ = harness.submit()
        var delays: [Duration] = []
        for serial in 1...6 {
            let connection = PoolHarness.connection(0, serial)
            _ = harness.closed(connection, IOError(.connect, "connection refused"))
            let lines = harness.ended(1, .notProcessed("connection refused"))
            let reconnect = lines.first { $0.hasPrefix("reconnect ") }
            #expect(reconnect != nil, "no reconnect timer after failure \(serial): \(lines)")
            delays.append(harness.backOff ?? .zero)
            // Nothing opens before the timer.
            #expect(harness.submit().allSatisfy { !$0.hasPrefix("open ") })
            harness.advance(harness.backOff ?? .zero)
            #expect(harness.reconnectTimerFired().first == "open 0.\(serial + 1)")
        }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8), .seconds(8)])
        // A success resets the count: the next quick failure waits the initial delay again.
        _ = harness.ready(PoolHarness.connection(0, 7))
        _ = harness.closed(PoolHarness.connection(0, 7), IOError(.broken, "reset by peer"))
        #expect(harness.backOff == .seconds(1))
    }

    @Test("a connection that lived a second or more and then broke reconnects at once")
    func longLivedConnectionReconnectsAtOnce() {
        var harness = PoolHarness()
        _ = harness.submit()
        _ = harness.ready(first)
        harness.advance(.seconds(5))
        _ = harness.closed(first, IOError(.broken, "reset by peer"))
        #expect(harness.pool.slots[0].notBefore == nil)
        #expect(harness.ended(1, .notProcessed("connection closed")) == ["record resent", "open 0.2", "send 1 on 0.2"])
    }

    @Test("the jitter takes 50 to 100 % of each step")
    func backOffJitter() {
        var harness = PoolHarness()
        harness.pool.jitter = { 0.5 }
        _ = harness.submit()
        _ = harness.closed(first, IOError(.connect, "connection refused"))
        #expect(harness.backOff == .milliseconds(500))
    }

    @Test("a proxy's refusal fails what waits and new requests at once, until the back-off allows a new attempt")
    func proxyRefusalFailsFast() {
        var harness = PoolHarness()
        _ = harness.submit()
        // The connection fails its request first (never processed), then reports its close.
        #expect(harness.ended(1, .notProcessed("proxy refused")) == ["record resent", "send 1 on 0.1"])
        let back = PoolHarness.lines(harness.pool.connectionRefusedRequest(1, connection: first, now: harness.now))
        #expect(back.isEmpty)
        #expect(harness.pool.location(of: 1) == .waiting)
        let closed = harness.closed(first, IOError(.proxyRefused, "407 Proxy Authentication Required"))
        #expect(closed.last == "fail 1 proxyRefused")
        #expect(harness.submit() == ["fail 2 proxyRefused"])
        harness.advance(.seconds(1))
        #expect(PoolHarness.sends(in: harness.submit()) == ["send 3 on 0.2"])
        #expect(harness.pool.refusal == nil)
    }

    // MARK: deadlines

    @Test("a request still waiting for a connection at its deadline fails notSent; one not yet due stays")
    func waitingRequestTimesOut() {
        var harness = PoolHarness(requestTimeout: .seconds(10), initialReconnectDelay: .seconds(60))
        let started = harness.submit()
        #expect(started.filter { $0.hasPrefix("sweep every") } == ["sweep every 0.25 seconds"])
        _ = harness.closed(first, IOError(.connect, "connection refused"))
        _ = harness.ended(1, .notProcessed("connection refused"))  // waits for the back-off
        harness.advance(.seconds(5))
        _ = harness.submit()  // due at 15 s
        harness.advance(.seconds(5))
        #expect(harness.sweep() == ["fail 1 notSent"])
        #expect(harness.pool.location(of: 2) != nil)
        #expect(harness.pool.waiting == [2])
        harness.advance(.seconds(5))
        #expect(harness.sweep() == ["fail 2 notSent"])
        #expect(harness.pool.waiting.isEmpty && harness.pool.liveCount == 0)
    }

    @Test("a request on a connection at its deadline is taken off the queue or reset, and ends as a timeout")
    func requestOnConnectionTimesOut() {
        var harness = PoolHarness(requestTimeout: .seconds(10))
        _ = harness.submit(count: 3)
        _ = harness.ready(first)
        harness.advance(.seconds(10))
        #expect(harness.sweep() == ["cancel or reset 1 on 0.1", "cancel or reset 2 on 0.1", "cancel or reset 3 on 0.1"])
        // Still queued: taken off, certainly unsent.
        #expect(harness.ended(1, .cancelled) == ["fail 1 notSent"])
        // On a stream: reset, outcome unknown, a timeout.
        #expect(harness.ended(2, .outcomeUnknown("stream reset with HTTP/2 error 8")) == ["fail 2 timeout"])
        // Never processed after its deadline: not resent.
        #expect(harness.ended(3, .notProcessed("stream refused by the server")) == ["fail 3 notSent"])
        #expect(harness.sweep() == [])
        #expect(harness.pool.liveCount == 0)
    }

    @Test("the sweep timer starts once, with a period a quarter of the timeout between 10 and 250 ms")
    func sweepTimerStartsOnce() {
        var harness = PoolHarness(requestTimeout: .milliseconds(200))
        #expect(harness.submit().contains("sweep every 0.05 seconds"))
        #expect(!harness.submit().contains { $0.hasPrefix("sweep") })
        #expect(!harness.submit(count: 3).contains { $0.hasPrefix("sweep") })
    }

    @Test("cancelling a request: one waiting fails at once, one on a connection is taken off its queue")
    func cancellation() {
        var harness = PoolHarness()
        _ = harness.submit()
        #expect(PoolHarness.lines(harness.pool.cancel(1)) == ["cancel 1 on 0.1"])
        #expect(harness.ended(1, .cancelled) == ["fail 1 cancelled"])
        _ = harness.closed(first, IOError(.connect, "refused"))
        _ = harness.submit()
        #expect(harness.pool.location(of: 2) == .waiting)
        #expect(PoolHarness.lines(harness.pool.cancel(2)) == ["fail 2 cancelled"])
        #expect(harness.pool.waiting.isEmpty)
    }

    // MARK: drain and shutdown

    @Test("shutdown: no new requests, waiting ones fail, in-flight ones finish, then drained and closed")
    func drainAndShutdown() {
        var harness = PoolHarness(connections: 2)
        _ = harness.submit(count: 2)
        _ = harness.ready(first)
        _ = harness.ready(second)
        harness.pool.goAway(second)
        _ = harness.ended(2, .notProcessed("GOAWAY"))  // resent on 0.1
        // A third request waits: slot 1's new connection is not ready, slot 0's is stopped.
        harness.pool.connectionStopped(first)
        _ = harness.submit()
        #expect(harness.pool.location(of: 3) == .connection(PoolHarness.connection(1, 3)))
        _ = PoolHarness.lines(harness.pool.connectionRefusedRequest(3, connection: PoolHarness.connection(1, 3), now: harness.now))
        #expect(harness.pool.location(of: 3) == .waiting)

        #expect(PoolHarness.lines(harness.pool.beginShutdown()) == ["fail 3 shutdown"])
        #expect(harness.submit() == ["fail 4 shutdown unrecorded"])
        #expect(harness.submit(count: 2) == ["fail 5 shutdown unrecorded", "fail 6 shutdown unrecorded"])
        // Never processed during shutdown: not resent.
        #expect(harness.ended(2, .notProcessed("connection closing")) == ["fail 2 shutdown"])
        #expect(PoolHarness.lines(harness.pool.awaitDrain()) == [])
        #expect(harness.answered(1) == ["drained"])
        #expect(harness.pool.liveCount == 0)
        #expect(PoolHarness.lines(harness.pool.closeConnections()) == ["cancel timers", "close 0.1", "close 1.3", "close 1.2"])
        #expect(harness.reconnectTimerFired().isEmpty)
    }

    @Test("shutdown with nothing in flight is drained at once; with requests left after the drain's deadline, connections are aborted")
    func shutdownDrainedOrAborted() {
        var idle = PoolHarness()
        _ = idle.submit()
        _ = idle.ready(first)
        _ = idle.answered(1)
        _ = idle.pool.beginShutdown()
        #expect(PoolHarness.lines(idle.pool.awaitDrain()) == ["drained"])

        var busy = PoolHarness()
        _ = busy.submit()
        _ = busy.ready(first)
        _ = busy.pool.beginShutdown()
        #expect(PoolHarness.lines(busy.pool.awaitDrain()) == [])
        #expect(PoolHarness.lines(busy.pool.closeConnections()) == ["cancel timers", "abort 0.1"])
        #expect(busy.ended(1, .outcomeUnknown("client shut down")) == ["fail 1 outcomeUnknown", "drained"])
    }
}
