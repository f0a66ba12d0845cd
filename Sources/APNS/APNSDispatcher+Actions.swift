import APNSCore
import PushHTTP2
import PushIO

/// What the pool decided, carried out: connections made and closed, requests written, timers, metrics
/// and outcomes.
extension APNSDispatcher {
    func perform(_ actions: Pool.Actions) {
        for action in actions { perform(action) }
    }

    func perform(_ action: Pool.Action) {
        switch action {
        case .openConnection(let id):
            open(id)
        case .send(let send, let id, let writeNow):
            write(send, on: id, now: writeNow)
        case .writeQueued(let id):
            connections[id]?.connection.writeQueued()
        case .cancelQueued(let send, let id):
            connections[id]?.connection.cancel(send)
        case .cancelOrReset(let send, let id):
            if let connection = connections[id]?.connection, !connection.cancel(send) { connection.reset(send) }
        case .fail(let send, let error, let recorded):
            send.connection = nil
            if recorded { configuration.metrics.record(.failed(error.kind)) }
            send.deliver(.failed(error))
        case .record(let event):
            configuration.metrics.record(event)
        case .startSweepTimer(let period):
            let timer = LoopTimer(loop: loop, repeating: true) { [unowned self] in perform(pool.sweep(now: .now)) }
            timer.schedule(after: period)
            sweepTimer = timer
        case .scheduleReconnect(let slot, let delay):
            let timer =
                reconnectTimers[slot] ?? LoopTimer(loop: loop) { [unowned self] in perform(pool.reconnectTimerFired(slot: slot, now: .now)) }
            reconnectTimers[slot] = timer
            timer.schedule(after: delay)
        case .cancelTimers:
            sweepTimer?.cancel()
            for timer in reconnectTimers.values { timer.cancel() }
        case .closeConnection(let id, let abort):
            guard let connection = connections[id]?.connection else { return }
            if abort { connection.abort("client shut down") } else { connection.close() }
        case .drained:
            let waiters = drainWaiters
            drainWaiters.removeAll()
            for waiter in waiters { waiter.resume() }
        }
    }

    private func open(_ id: APNSPoolConnectionID) {
        var settings = configuration.connectionSettings(tls: tls)
        settings.maxConcurrentStreams = configuration.maxConcurrentStreams
        // A notification's own id differs from every other's, and so does a collapse id derived from it: never
        // indexed (HPACK), so they do not push the repeated fields (authorization, topic) out of the table.
        settings.unindexedFields = [APNSHeader.id, APNSHeader.requestID, APNSHeader.collapseID]
        let connection = APNSPoolConnection(id: id, connection: HTTP2ClientConnection(loop: loop, configuration: settings), dispatcher: self)
        connections[id] = connection
        connection.connection.connect()
    }

    /// Hands `send` to connection `id`; one that stopped taking requests before the pool heard of it
    /// sends it back to the pool.
    private func write(_ send: APNSSend, on id: APNSPoolConnectionID, now writeNow: Bool) {
        guard let pooled = connections[id], pooled.takesRequests else {
            perform(pool.connectionRefusedRequest(send.id, connection: id, now: .now))
            return
        }
        guard authorize(send) else { return }
        send.connection = pooled
        send.dispatcher = self
        send.clearAnswer()
        if writeNow { pooled.connection.send(send) } else { pooled.connection.enqueue(send) }
    }

    /// Puts the current provider token in the request (token auth); false (and the send finished) when
    /// no token can be signed.
    private func authorize(_ send: APNSSend) -> Bool {
        guard let tokenProvider else { return true }
        do {
            let token = try tokenProvider.currentToken()
            send.jwt = token.jwt
            if let count = send.unauthorizedHeaderCount {
                send.request.headers.removeSubrange(count...)
            } else {
                send.unauthorizedHeaderCount = send.request.headers.count
            }
            send.request.headers.append((APNSHeader.authorization, token.authorization))
            return true
        } catch {
            perform(pool.requestFailed(send.id, APNSTransportError(.notSent, "cannot sign the provider token: \(error)")))
            return false
        }
    }
}
