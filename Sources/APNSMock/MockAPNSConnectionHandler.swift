import APNSCore
import Foundation
import PushHTTP2
import PushIO
import PushSync
import PushTLS

/// Serves one client connection of a mock server: decides, records and answers (maybe late) each request;
/// applies the connection knobs (`MockAPNSConnectionHandler+Knobs.swift`). Confined to the server loop's thread: `HTTP2ServerConnection` calls it there
/// and its timers fire there.
final class MockAPNSConnectionHandler: HTTP2ServerHandler {
    let core: MockAPNSCore
    /// The connection that owns this handler (it holds the handler until it closes): not retained and not
    /// weak (a weak reference gave the connection a side table, a slow retain and release on every use),
    /// set to nil when it closes.
    unowned(unsafe) var connection: HTTP2ServerConnection?
    let loop: EventLoop
    /// `acceptAll`: requests arrive as three captured fields (``requestFields``), never whole.
    private let acceptAll: Bool
    let idleTimeout: Duration?
    let id: Int
    private var context: MockAPNSConnectionContext?
    var requestCount = 0
    /// The highest stream id handed over so far: a GOAWAY names it, so no request it decided lies above.
    var highestStreamID: Int32 = 0
    var streamLimitDropped = false
    /// The MAX_CONCURRENT_STREAMS this connection was last told (outside the two throttles).
    var announcedStreams: Int
    var goAwaySent = false
    /// Token auth: the connection still runs at one stream until its first valid token.
    var awaitingAuthentication: Bool
    /// The generator of the ids this connection makes up, out of line so that drawing from it (an
    /// `inout` use, twice per answer) costs no runtime exclusivity check.
    private let ids = UnsafeMutablePointer<MockRandom>.allocate(capacity: 1)
    /// Answers waiting for their latency, by stream: the timer and what it will answer.
    var delayed = MockAPNSDelayedAnswers()
    /// The fast path's (`acceptAll`) answers waiting for their latency.
    var fastDelayed = MockAPNSFastDelayedAnswers()
    /// The one timer of the delayed answers (of either path: a connection takes one), armed for the earliest.
    var answerTimer: LoopTimer?
    var idleTimer: LoopTimer?
    var closeTimer: LoopTimer?
    /// Broadcast streams not yet answered: they answer with `apns-request-id` (and `apns-unique-id`).
    private var broadcastStreams: Set<Int32> = []
    /// The header fields of the last 200 answer, kept for its capacity.
    private var acceptedFields: [(name: String, value: String)] = []
    /// Answers given that the client may not have received yet, for the record of a reset (not kept on
    /// the `acceptAll` path, which records nothing).
    var undelivered = MockAPNSUndeliveredAnswers()

    init(core: MockAPNSCore, connection: HTTP2ServerConnection) {
        self.core = core
        self.connection = connection
        loop = connection.loop
        ids.initialize(to: MockRandom.systemSeeded())
        acceptAll = core.configuration.acceptAll
        idleTimeout = core.configuration.idleTimeout
        id = core.recorder.countConnectionOpened()
        awaitingAuthentication = core.startsAtOneStream
        announcedStreams = core.configuration.maxConcurrentStreams
        if let idle = core.configuration.idleTimeout {
            let timer = LoopTimer(loop: loop) { [unowned self] in self.idleTimerFired() }
            timer.schedule(after: idle)
            idleTimer = timer
        }
    }

    deinit {
        ids.deinitialize(count: 1)
        ids.deallocate()
    }

    /// The fast path's fields: `:path` (broadcasts answer with `apns-request-id`) and the ids to echo.
    var requestFields: [String]? { acceptAll ? [":path", APNSHeader.id, APNSHeader.requestID] : nil }

    func connection(_ connection: HTTP2ServerConnection, didReceive request: HTTP2ServerRequest) {
        guard let knobs = admit(request.streamID, on: connection) else { return }
        let broadcast = MockAPNSBroadcastRules.isBroadcast(request.path)
        if broadcast { broadcastStreams.insert(request.streamID) }
        let given = request.header(broadcast ? APNSHeader.requestID : APNSHeader.id)
        let apnsID = given.flatMap { APNSID.isValid($0) ? $0 : nil } ?? APNSID.generate(using: &ids.pointee)
        core.recorder.countStream(concurrentStreams: connection.maxObservedOpenStreams)
        applyStreamLimit(knobs)
        decideAndAnswer(request, apnsID: apnsID, knobs: knobs, on: connection)
        goAwayIfDue(knobs)
    }

    /// The `acceptAll` fast path: every request is accepted from its captured fields; no request is
    /// built, checked or recorded, only counted. With a latency (the knob) the answer waits in
    /// ``fastDelayed``; without one it goes out at once, and the latency costs this path one enum check.
    func connection(_ connection: HTTP2ServerConnection, didReceiveFields fields: HTTP2ServerRequestFields) {
        guard let knobs = admit(fields.streamID, on: connection) else { return }
        let broadcast = fields.value(0, hasPrefix: "/4/broadcasts/apps/")
        core.recorder.countFastAccept(concurrentStreams: connection.maxObservedOpenStreams)
        let withUniqueID = knobs.sendsUniqueIDs || broadcast
        // No latency (the benchmarks' usual case): the answer goes out here, with no delay drawn.
        let delay: Duration
        if case .none = knobs.latency { delay = .zero } else { delay = core.nextDelay(knobs) }
        fields.withValue(broadcast ? 2 : 1) { given in
            let echoed = given.flatMap { APNSID.isValid(bytes: $0) ? $0 : nil }
            guard delay > .zero else {
                respondFast(to: fields.streamID, broadcast: broadcast, withUniqueID: withUniqueID, echoed: echoed, on: connection)
                return
            }
            // As on the validating path, the latency runs from the read that brought the request.
            let due = connection.receivedAt + delay
            if fastDelayed.add(streamID: fields.streamID, due: due, broadcast: broadcast, withUniqueID: withUniqueID, echoed: echoed) {
                armFastAnswerTimer(for: due)
            }
        }
        if let idleTimeout { idleTimer?.schedule(after: idleTimeout) }
        goAwayIfDue(knobs)
    }

    /// The fast path's answer, written as bytes: the id the request gave (when valid) or a new one, and a
    /// unique id, with no string made.
    @inline(__always)
    private func respondFast(
        to streamID: Int32, broadcast: Bool, withUniqueID: Bool, echoed: UnsafeRawBufferPointer?,
        on connection: HTTP2ServerConnection
    ) {
        connection.respond(to: streamID, status: 200, maxFields: 2, valueBytes: 72) { answer in
            let name: StaticString = broadcast ? "apns-request-id" : "apns-id"
            if let echoed {
                answer.add(name, echoed, indexed: false)
            } else {
                answer.add(name, length: 36, indexed: false) { APNSID.generate(using: &ids.pointee, into: $0) }
            }
            if withUniqueID {
                answer.add("apns-unique-id", length: 36, indexed: false) { APNSID.generate(using: &ids.pointee, into: $0) }
            }
        }
    }

    /// Arms the fast path's answer timer for `due`, rounded up to a whole millisecond from now: one
    /// wake-up answers every request that fell due within that millisecond, never one before its time.
    private func armFastAnswerTimer(for due: ContinuousClock.Instant) {
        let timer = answerTimer ?? LoopTimer(loop: loop) { [unowned self] in self.fastAnswersDue() }
        answerTimer = timer
        let wait = max(.zero, due - ContinuousClock.now)
        let milliseconds = (wait / .milliseconds(1)).rounded(.up)
        timer.schedule(after: .milliseconds(milliseconds))
    }

    /// The fast path's answer timer fired: every answer due goes out (in one write: the connection flushes
    /// after this loop iteration's events), and the timer is armed for the next.
    private func fastAnswersDue() {
        let now = ContinuousClock.now
        if let connection, !connection.isClosed {
            while let due = fastDelayed.takeDue(now: now) {
                due.withEchoedID { echoed in
                    respondFast(to: due.streamID, broadcast: due.broadcast, withUniqueID: due.withUniqueID, echoed: echoed, on: connection)
                }
            }
        } else {
            _ = fastDelayed.takeAll()
        }
        if let next = fastDelayed.nextDue { armFastAnswerTimer(for: next) }
    }

    /// The fast path's answers still waiting go out now (the close after a GOAWAY).
    func answerFastDelayedNow() {
        guard let connection, !connection.isClosed else { return }
        for due in fastDelayed.takeAll() {
            due.withEchoedID { echoed in
                respondFast(to: due.streamID, broadcast: due.broadcast, withUniqueID: due.withUniqueID, echoed: echoed, on: connection)
            }
        }
    }

    func connection(_ connection: HTTP2ServerConnection, didWrite total: Int) {
        guard !acceptAll else { return }
        undelivered.wrote(upTo: total, undelivered: connection.undeliveredBytes)
    }

    func connectionDidClose(_ connection: HTTP2ServerConnection) {
        self.connection = nil
        core.recorder.countConnectionClosed()
        // Timers may be the ones firing right now: free them on a later loop turn.
        let timers = [answerTimer, idleTimer, closeTimer].compactMap { $0 }
        _ = delayed.takeAll()
        _ = fastDelayed.takeAll()
        answerTimer = nil
        idleTimer = nil
        closeTimer = nil
        for timer in timers { timer.cancel() }
        loop.execute { withExtendedLifetime(timers) {} }
    }

    private func decideAndAnswer(
        _ request: HTTP2ServerRequest, apnsID: String, knobs: MockAPNSKnobs,
        on connection: HTTP2ServerConnection
    ) {
        let context =
            self.context
            ?? {
                let made = MockAPNSConnectionContext(
                    id: id, clientCertificate: connection.tlsInfo?.peerCertificate,
                    environment: core.configuration.environment)
                self.context = made
                return made
            }()
        context.maxObservedOpenStreams = connection.maxObservedOpenStreams
        let mockRequest = MockAPNSRequest(
            method: request.method, path: request.path, headers: request.headers,
            payload: request.body, clientCertificateUID: context.certificateInfo?.subjectUID,
            connectionID: id, clientCertificateFingerprint: context.clientCertificate?.sha256Fingerprint)
        let verdict = core.decide(mockRequest, on: context, knobs: knobs)
        if awaitingAuthentication, context.isAuthenticated {
            // Apple: after the first valid provider token the connection gets its full stream limit.
            awaitingAuthentication = false
            announcedStreams = knobs.maxConcurrentStreams
            connection.updateSettings(maxConcurrentStreams: announcedStreams)
        }
        let outcome: APNSOutcome =
            verdict.rejection.map {
                .rejected(APNSRejection(status: $0.status, reason: $0.reason, timestamp: $0.timestamp, apnsID: apnsID))
            } ?? .accepted(apnsID: apnsID, uniqueID: uniqueID(knobs, always: broadcastStreams.contains(request.streamID)))
        core.recorder.record(
            MockAPNSRecord(
                token: mockRequest.token.map(MockAPNSRules.lowercasedToken) ?? request.path, topic: verdict.topic,
                headers: request.headers, payload: request.body, clientCertificateUID: mockRequest.clientCertificateUID,
                apnsID: apnsID, outcome: outcome, connectionID: id, time: Date(), streamID: Int(request.streamID),
                clientCertificateFingerprint: mockRequest.clientCertificateFingerprint))

        let delay = verdict.delay ?? core.nextDelay(knobs)
        guard delay > .zero else {
            answer(streamID: request.streamID, outcome: outcome)
            return
        }
        // The latency runs from the request's arrival (the read that brought it), not from this point: the
        // requests handled before it in the same read would otherwise each add their handling time to it.
        let due = connection.receivedAt + delay
        if delayed.add(outcome, streamID: request.streamID, due: due) { armAnswerTimer(in: due - ContinuousClock.now) }
    }

    private func armAnswerTimer(in delay: Duration) {
        let timer = answerTimer ?? LoopTimer(loop: loop) { [unowned self] in self.answerDue() }
        answerTimer = timer
        timer.schedule(after: max(.zero, delay))
    }

    /// The answer timer fired: everything due goes out (in one write: the connection flushes after this
    /// loop iteration's events), and the timer is armed for the next.
    private func answerDue() {
        let now = ContinuousClock.now
        // What is due within the next 0.2 ms goes now: another wake-up for it would come as late.
        let (due, next) = delayed.takeDue(now: now, slack: .microseconds(200))
        for (streamID, outcome) in due { answer(streamID: streamID, outcome: outcome) }
        if let next { armAnswerTimer(in: next - now) }
    }

    /// Apple sends `apns-unique-id` for device pushes in development only (`MockAPNSKnobs.sendsUniqueIDs`),
    /// for broadcasts always (its broadcast page names no environment).
    private func uniqueID(_ knobs: MockAPNSKnobs, always: Bool = false) -> String? {
        knobs.sendsUniqueIDs || always ? APNSID.generate(using: &ids.pointee) : nil
    }

    /// Writes the answer; SETTINGS for the stream-limit throttle go out just before it.
    func answer(streamID: Int32, outcome: APNSOutcome) {
        guard let connection, !connection.isClosed else { return }
        let broadcast = !broadcastStreams.isEmpty && broadcastStreams.remove(streamID) != nil
        let idHeader = broadcast ? APNSHeader.requestID : APNSHeader.id
        switch outcome {
        case .accepted(let apnsID, let uniqueID):
            if streamLimitDropped {
                streamLimitDropped = false
                announcedStreams = core.knobs.withLock { $0.maxConcurrentStreams }
                connection.updateSettings(maxConcurrentStreams: announcedStreams)
            }
            // One array for every answer: respond does not keep it, so it is never copied.
            acceptedFields.removeAll(keepingCapacity: true)
            acceptedFields.append((idHeader, apnsID))
            if let uniqueID { acceptedFields.append((APNSHeader.uniqueID, uniqueID)) }
            connection.respond(to: streamID, status: 200, headers: acceptedFields)
        case .rejected(let rejection):
            if core.configuration.dropStreamLimitAfterRejection, !streamLimitDropped {
                streamLimitDropped = true
                connection.updateSettings(maxConcurrentStreams: 1)
            }
            connection.respond(
                to: streamID, status: rejection.status,
                headers: [("content-type", "application/json"), (idHeader, rejection.apnsID ?? "")],
                body: rejection.jsonBody())
        }
        undelivered.answered(streamID)
        if let idleTimeout { idleTimer?.schedule(after: idleTimeout) }
    }

}
