import APNSCore
import Foundation
import PushHTTP
import PushHTTP2
import PushIO
import PushTLS

/// Routes sends onto connections, resends what APNs never processed, enforces timeouts and reconnect
/// back-off. Confined to the client's loop thread and not `Sendable`: the client and its inbox hold it in a
/// ``LoopBound``, which checks the thread on every access.
final class APNSDispatcher {
    let loop: EventLoop
    let configuration: APNSClientConfiguration
    let tls: TLSContext
    /// Token auth: the source of the `authorization` header, read when a request is written.
    let tokenProvider: APNSTokenProvider?
    var slots: [APNSConnectionSlot]
    var waiting = SendQueue()
    var live: [UInt64: APNSSend] = [:]
    var deadlines = DeadlineQueue()
    var sweepTimer: LoopTimer?
    var shuttingDown = false
    var drained: [CheckedContinuation<Void, Never>] = []
    /// The proxy's (or the TLS handshake's) last refusal while no new connection attempt is under way: sends
    /// fail at once with it instead of waiting for a connection that will be refused again.
    var refusal: APNSTransportError?

    init(loop: EventLoop, configuration: APNSClientConfiguration, tls: TLSContext, tokenProvider: APNSTokenProvider? = nil) {
        self.loop = loop
        self.configuration = configuration
        self.tls = tls
        self.tokenProvider = tokenProvider
        slots = (0..<max(1, configuration.connections)).map { APNSConnectionSlot(index: $0) }
    }

    /// Sends in progress.
    var liveCount: Int { live.count }
    /// Connections ready to send.
    var readyConnections: Int { slots.filter { $0.connection?.state == .ready }.count }
    /// Streams open across connections.
    var openStreams: Int { slots.reduce(0) { $0 + ($1.connection?.openStreamCount ?? 0) } }

    func submit(_ send: APNSSend) {
        if shuttingDown {
            send.deliver(.failure(APNSTransportError(.shutdown, "client is shutting down")))
            return
        }
        if let refused = currentRefusal() {
            configuration.metrics.record(.failed(refused.kind))
            send.deliver(.failure(refused))
            return
        }
        live[send.id] = send
        send.isLive = true
        deadlines.append(deadline: send.deadline, id: send.id)
        startSweeping()
        route(send)
    }

    /// Takes many sends at once: each is routed as by ``submit(_:)``, and every connection that got
    /// some writes them out together afterwards.
    func submit(_ sends: [APNSSend]) {
        if shuttingDown {
            for send in sends { send.deliver(.failure(APNSTransportError(.shutdown, "client is shutting down"))) }
            return
        }
        if let refused = currentRefusal() {
            for send in sends {
                configuration.metrics.record(.failed(refused.kind))
                send.deliver(.failure(refused))
            }
            return
        }
        live.reserveCapacity(live.count + sends.count)
        for send in sends {
            live[send.id] = send
            send.isLive = true
            deadlines.append(deadline: send.deadline, id: send.id)
        }
        startSweeping()
        openIdleSlots()
        var used: [HTTP2ClientConnection] = []
        for send in sends {
            if let connection = route(send, openSlots: false, writeNow: false),
                !used.contains(where: { $0 === connection })
            {
                used.append(connection)
            }
        }
        for connection in used { connection.writeQueued() }
    }

    /// Drops a send that has not been written yet (task cancellation); one on the wire is left to finish.
    func cancel(id: UInt64) {
        guard let send = live[id] else { return }
        if let connection = send.connection {
            connection.cancel(send)
        } else if waiting.remove(id: id) {
            finish(send, .failure(APNSTransportError(.cancelled, "cancelled before it was sent")))
        }
    }

    /// Puts `send` on the least loaded usable connection (ready ones first), or in the waiting queue.
    /// With `writeNow` false the connection only queues it: the caller calls `writeQueued()` later.
    /// Returns the connection it went to.
    @discardableResult
    private func route(_ send: APNSSend, openSlots: Bool = true, writeNow: Bool = true) -> HTTP2ClientConnection? {
        send.connection = nil
        if openSlots { openIdleSlots() }
        var best: HTTP2ClientConnection?
        var bestLoad = Int.max
        var bestReady = false
        for slot in slots {
            guard let candidate = slot.usableConnection else { continue }
            let ready = candidate.state == .ready
            let load = slot.load
            if (ready && !bestReady) || (ready == bestReady && load < bestLoad) {
                best = candidate
                bestLoad = load
                bestReady = ready
            }
        }
        guard let connection = best else {
            waiting.append(send)
            scheduleReconnects()
            return nil
        }
        guard authorize(send) else { return nil }
        send.connection = connection
        send.dispatcher = self
        send.clearAnswer()
        if writeNow { connection.send(send) } else { connection.enqueue(send) }
        return connection
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
            finish(send, .failure(APNSTransportError(.notSent, "cannot sign the provider token: \(error)")))
            return false
        }
    }

    /// After 403 ExpiredProviderToken: replaces the token (once per send, whatever its age: APNs no
    /// longer takes it) and sends again. False when this send already had its refresh.
    private func refreshTokenAndResend(_ send: APNSSend) -> Bool {
        guard let tokenProvider, let jwt = send.jwt, !send.refreshedToken, !send.timedOut, !shuttingDown else { return false }
        send.refreshedToken = true
        do {
            _ = try tokenProvider.refresh(replacing: jwt)
        } catch {
            return false
        }
        configuration.metrics.record(.resent)
        route(send)
        return true
    }

    /// The last refusal, unless the back-off now allows a new attempt (which then starts).
    private func currentRefusal() -> APNSTransportError? {
        guard refusal != nil else { return nil }
        openIdleSlots()
        return refusal
    }

    private func openIdleSlots() {
        let now = ContinuousClock.now
        for slot in slots where slot.connection == nil && now >= slot.notBefore {
            refusal = nil
            var settings = HTTP2ClientConnection.Configuration(
                host: configuration.environment.host, port: configuration.environment.port, tls: tls)
            settings.proxy = configuration.proxy
            settings.maxConcurrentStreams = configuration.maxConcurrentStreams
            settings.connectTimeout = configuration.connectTimeout
            settings.pingInterval = configuration.pingInterval
            settings.idleTimeout = configuration.idleTimeout
            // A notification's own id differs from every other's: never indexed (HPACK).
            settings.unindexedFields = [APNSHeader.id, APNSHeader.requestID]
            let connection = HTTP2ClientConnection(loop: loop, configuration: settings)
            let observer = SlotObserver(dispatcher: self, slot: slot)
            connection.delegate = observer
            slot.observers[ObjectIdentifier(connection)] = observer
            slot.connection = connection
            slot.readySince = nil
            connection.connect()
        }
    }

    private func scheduleReconnects() {
        let now = ContinuousClock.now
        guard let soonest = slots.filter({ $0.connection == nil }).map(\.notBefore).min(), soonest > now else { return }
        let slot = slots.first { $0.connection == nil && $0.notBefore == soonest }!
        if slot.reconnectTimer?.isScheduled == true { return }
        let timer = slot.reconnectTimer ?? LoopTimer(loop: loop) { [unowned self] in self.drainWaiting() }
        slot.reconnectTimer = timer
        timer.schedule(after: soonest - now)
    }

    func drainWaiting() {
        guard !shuttingDown else { return }
        let pending = waiting.takeAll()
        for (index, send) in pending.enumerated() {
            route(send)
            if send.connection == nil, send.isLive {
                // Still nowhere to go (route queued it again): keep the rest waiting in order.
                for rest in pending[(index + 1)...] { waiting.append(rest) }
                return
            }
        }
    }

    /// The end of `send`'s exchange on its connection: the answer (`failure` nil) or why none came.
    func complete(_ send: APNSSend, _ failure: HTTP2ClientFailure?) {
        guard send.isLive else { return }
        switch failure {
        case nil:
            if send.status == 200 {
                finish(send, .success(.accepted(apnsID: send.answerID ?? "", uniqueID: send.uniqueID)))
            } else {
                let rejection = APNSRejection.parse(status: send.status, body: send.body, apnsID: send.answerID)
                if rejection.reason == .expiredProviderToken, refreshTokenAndResend(send) { return }
                finish(send, .success(.rejected(rejection)))
            }
        case .notProcessed(let why):
            if send.timedOut {
                // Never written: the timeout leaves it certainly unsent, safe to send again.
                finish(
                    send, .failure(APNSTransportError(.notSent, "request timeout: not sent within \(configuration.requestTimeout / .seconds(1)) s")))
            } else if shuttingDown {
                finish(send, .failure(APNSTransportError(.shutdown, "client is shutting down")))
            } else if send.resends < configuration.maxResends {
                send.resends += 1
                configuration.metrics.record(.resent)
                route(send)
            } else {
                finish(send, .failure(APNSTransportError(.notSent, why)))
            }
        case .outcomeUnknown(let why):
            let kind: APNSTransportError.Kind = send.timedOut ? .timeout : .outcomeUnknown
            finish(send, .failure(APNSTransportError(kind, why)))
        case .cancelled:
            // Taken off a connection's queue before it was written (the timeout, or the task cancelled).
            let kind: APNSTransportError.Kind = send.timedOut ? .notSent : .cancelled
            finish(send, .failure(APNSTransportError(kind, send.timedOut ? "request timeout: not sent" : "not sent")))
        }
    }

    /// `duration` in seconds, from its components: `Duration / Duration` goes through a generic
    /// floating-point conversion that cost more than the rest of the latency's bookkeeping.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    func finish(_ send: APNSSend, _ result: Result<APNSOutcome, APNSTransportError>) {
        live[send.id] = nil
        send.isLive = false
        send.connection = nil
        let latency = Self.seconds(ContinuousClock.now - send.started)
        switch result {
        case .success(.accepted): configuration.metrics.record(.accepted(latency: latency))
        case .success(.rejected(let rejection)): configuration.metrics.record(.rejected(reason: rejection.reason, latency: latency))
        case .failure(let error): configuration.metrics.record(.failed(error.kind))
        }
        send.deliver(result)
        if live.isEmpty, !drained.isEmpty {
            let waiters = drained
            drained.removeAll()
            for waiter in waiters { waiter.resume() }
        }
    }
}
