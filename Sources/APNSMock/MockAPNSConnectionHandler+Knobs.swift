import APNSCore
import Foundation
import PushHTTP2
import PushIO
import PushSync

/// The connection knobs of a mock connection, the handler's second job next to answering requests: the
/// abrupt close that cuts a request off, the stream limit it announces, GOAWAY (after a number of streams, on
/// demand, when idle) and the close that follows one. On the server loop's thread, like the handler.
extension MockAPNSConnectionHandler {
    /// Counts a request and applies the connection knobs that cut it off; the knobs in force, or nil
    /// when the connection was dropped.
    func admit(_ streamID: Int32, on connection: HTTP2ServerConnection) -> MockAPNSKnobs? {
        let knobs = core.knobs.withLock { $0 }
        requestCount += 1
        highestStreamID = max(highestStreamID, streamID)
        let cutOff = core.countRequestAndCheckAbruptClose(knobs)
        if cutOff || knobs.abruptCloseAfterStreams.map({ requestCount > $0 }) == true {
            core.recorder.countStream(concurrentStreams: connection.maxObservedOpenStreams)
            core.recorder.countAbort(resetRecord(connection))
            connection.abort()
            return nil
        }
        if let idleTimeout { idleTimer?.schedule(after: idleTimeout) }
        return knobs
    }

    /// The record of a reset about to happen: the decided requests whose answers the client has not
    /// received (waiting for their latency, given but unwritten, or written but not yet acknowledged by the
    /// client's TCP; ``MockAPNSReset`` says why that is the line).
    private func resetRecord(_ connection: HTTP2ServerConnection) -> MockAPNSReset {
        let kernel = connection.kernelOutputQueue
        let total = connection.bytesWritten
        let undeliveredBytes = connection.undeliveredBytes
        let waiting = delayed.streamIDs + fastDelayed.streamIDs
        let owed = (undelivered.owed(total: total, undelivered: undeliveredBytes) + waiting).map(Int.init).sorted()
        return MockAPNSReset(
            connectionID: id, time: Date(), owedStreamIDs: owed, unacknowledgedBytes: kernel?.unacknowledged,
            unsentBytes: kernel?.unsent, queuedBytes: max(0, undeliveredBytes - (kernel?.unacknowledged ?? 0)))
    }

    func goAwayIfDue(_ knobs: MockAPNSKnobs) {
        if let limit = knobs.goAwayAfterStreams, requestCount >= limit, !goAwaySent {
            sendGoAway(knobs.goAwayReason, lastStreamID: highestStreamID)
        }
    }

    /// Announces a changed stream-limit knob, unless a throttle (token auth, rejection) holds the limit.
    func applyStreamLimit(_ knobs: MockAPNSKnobs) {
        loop.preconditionInEventLoop()
        guard let connection, !connection.isClosed, !awaitingAuthentication, !streamLimitDropped,
            knobs.maxConcurrentStreams != announcedStreams
        else { return }
        announcedStreams = knobs.maxConcurrentStreams
        connection.updateSettings(maxConcurrentStreams: announcedStreams)
    }

    /// Sends GOAWAY with `reason` now; the requests already received are still answered.
    func goAwayNow(_ reason: APNSRejectionReason) {
        loop.preconditionInEventLoop()
        sendGoAway(reason, lastStreamID: nil)
    }

    private func sendGoAway(_ reason: APNSRejectionReason, lastStreamID: Int32?) {
        guard let connection, !connection.isClosed, !goAwaySent else { return }
        goAwaySent = true
        core.recorder.countGoAways()
        connection.goAway(debugData: APNSRejection(reason).jsonBody(), lastStreamID: lastStreamID)
        if let delay = core.configuration.closeAfterGoAway {
            // Answered or not: the streams still open then end without an answer.
            let timer = LoopTimer(loop: loop) { [unowned self] in self.closeAfterGoAway() }
            timer.schedule(after: delay)
            closeTimer = timer
        }
    }

    /// The close that follows a GOAWAY after `closeAfterGoAway`: answers still waiting for their latency
    /// go out now, right before the close (their bytes and the FIN reach the client together), and
    /// streams not received whole by then get no answer.
    private func closeAfterGoAway() {
        guard let connection, !connection.isClosed else { return }
        answerTimer?.cancel()
        for (streamID, outcome) in delayed.takeAll() { answer(streamID: streamID, outcome: outcome) }
        answerFastDelayedNow()
        connection.close()
    }

    func idleTimerFired() {
        guard let connection, !connection.isClosed, let idle = core.configuration.idleTimeout else { return }
        if connection.openStreamCount > 0 || !delayed.isEmpty || !fastDelayed.isEmpty {
            idleTimer?.schedule(after: idle)
            return
        }
        sendGoAway(.idleTimeout, lastStreamID: nil)
    }
}
