import APNSCore
import Foundation
import PushHTTP
import PushHTTP2
import PushIO
import PushTLS

/// The connection pool on the client's loop: feeds what happens (sends, answers, connection events,
/// timers) to an ``APNSPoolStateMachine``, which makes every decision, and performs the actions it
/// returns (connects, writes, timers, metrics, outcomes). Confined to the client's loop thread and not
/// `Sendable`: the client and its inbox hold it in a ``LoopBound``, which checks the thread on every access.
final class APNSDispatcher {
    typealias Pool = APNSPoolStateMachine<APNSSend>

    let loop: EventLoop
    let configuration: APNSClientConfiguration
    let tls: TLSContext
    /// Token auth: the source of the `authorization` header, read when a request is written.
    let tokenProvider: APNSTokenProvider?
    /// The pool's decisions.
    var pool: Pool
    /// The pool's connections (live and retiring), by id.
    var connections: [APNSPoolConnectionID: APNSPoolConnection] = [:]
    var sweepTimer: LoopTimer?
    var reconnectTimers: [Int: LoopTimer] = [:]
    var drainWaiters: [CheckedContinuation<Void, Never>] = []

    init(loop: EventLoop, configuration: APNSClientConfiguration, tls: TLSContext, tokenProvider: APNSTokenProvider? = nil) {
        self.loop = loop
        self.configuration = configuration
        self.tls = tls
        self.tokenProvider = tokenProvider
        pool = Pool(configuration: .init(configuration))
    }

    /// Sends in progress.
    var liveCount: Int { pool.liveCount }
    /// Connections ready to send.
    var readyConnections: Int { pool.currentConnections.filter { connections[$0]?.connection.state == .ready }.count }
    /// Streams open across connections.
    var openStreams: Int { pool.currentConnections.reduce(0) { $0 + (connections[$1]?.connection.openStreamCount ?? 0) } }

    func submit(_ send: APNSSend) {
        perform(pool.submit(send, now: .now))
    }

    /// Takes many sends at once: each is routed as by ``submit(_:)``, and every connection that got
    /// some writes them out together afterwards.
    func submit(_ sends: [APNSSend]) {
        perform(pool.submit(sends, now: .now))
    }

    /// Drops a send that has not been written yet (task cancellation); one on the wire is left to finish.
    func cancel(id: UInt64) {
        perform(pool.cancel(id))
    }

    /// The end of `send`'s exchange on its connection: the answer (`failure` nil) or why none came.
    func complete(_ send: APNSSend, _ failure: HTTP2ClientFailure?) {
        switch failure {
        case nil: answered(send)
        case .notProcessed(let why): perform(pool.exchangeEnded(send.id, .notProcessed(why), now: .now))
        case .outcomeUnknown(let why): perform(pool.exchangeEnded(send.id, .outcomeUnknown(why), now: .now))
        case .cancelled: perform(pool.exchangeEnded(send.id, .cancelled, now: .now))
        }
    }

    private func answered(_ send: APNSSend) {
        let outcome: APNSDeliveryResult
        if send.status == 200 {
            outcome = .accepted(apnsID: send.answerID ?? "", uniqueID: send.uniqueID)
        } else {
            let rejection = APNSRejection.parse(status: send.status, body: send.body, apnsID: send.answerID)
            if rejection.reason == .expiredProviderToken, refreshTokenAndResend(send) { return }
            outcome = .rejected(rejection)
        }
        guard let (_, after) = pool.answered(send.id) else { return }
        send.connection = nil
        let latency = Self.seconds(ContinuousClock.now - send.started)
        if case .rejected(let rejection) = outcome {
            configuration.metrics.record(.rejected(reason: rejection.reason, latency: latency))
        } else {
            configuration.metrics.record(.accepted(latency: latency))
        }
        send.deliver(outcome)
        perform(after)
    }

    /// After 403 ExpiredProviderToken: replaces the token (once per send, whatever its age: APNs no
    /// longer takes it) and sends again. False when this send already had its refresh.
    private func refreshTokenAndResend(_ send: APNSSend) -> Bool {
        guard let tokenProvider, let jwt = send.jwt, !send.refreshedToken, pool.mayResend(send.id) else { return false }
        send.refreshedToken = true
        do {
            _ = try tokenProvider.refresh(replacing: jwt)
        } catch {
            return false
        }
        perform(pool.resend(send.id, now: .now))
        return true
    }

    /// `duration` in seconds, from its components: `Duration / Duration` goes through a generic
    /// floating-point conversion that cost more than the rest of the latency's bookkeeping.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    // MARK: shutdown

    /// Stops taking sends; those waiting for a connection fail, those in flight go on.
    func beginShutdown() {
        perform(pool.beginShutdown())
    }

    /// Resumes `continuation` once no send is in flight.
    func waitForDrain(_ continuation: CheckedContinuation<Void, Never>) {
        drainWaiters.append(continuation)
        perform(pool.awaitDrain())
    }

    /// Closes every connection (aborting them when sends are still in flight) and stops the timers.
    func closeConnections() {
        perform(pool.closeConnections())
    }
}
