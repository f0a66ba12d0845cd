import APNSCore
import JSON
import PushHTTP
import PushHTTP2
import PushIO
import PushTLS

/// The channel management client's one HTTP/2 connection (management traffic is light): opened on
/// demand and again after GOAWAY or a failure, requests APNs never processed sent again with back-off,
/// a deadline per request, and token auth with one token refresh after 403 ExpiredProviderToken.
///
/// Confined to `loop`'s thread and not `Sendable`: the client holds it in a ``LoopBound``, which checks the
/// thread on every access (``LoopBound/perform(_:)`` hops there).
final class APNSChannelManagementTransport {
    /// One request in progress.
    private final class Job {
        let request: HTTP2Request
        let continuation: CheckedContinuation<HTTPResponse, any Error>
        var attempts = 0
        /// Attempts that ended with their connection failing (not GOAWAY or a refused stream).
        var failedConnections = 0
        var refreshedToken = false
        var jwt: String?
        var timer: LoopTimer?
        var retryTimer: LoopTimer?
        var connection: HTTP2ClientConnection?
        var handle: Int64 = 0
        var finished = false

        init(request: HTTP2Request, continuation: CheckedContinuation<HTTPResponse, any Error>) {
            self.request = request
            self.continuation = continuation
        }
    }

    let loop: EventLoop
    let configuration: APNSClientConfiguration
    private let tls: TLSContext
    private let tokenProvider: APNSTokenProvider?
    private var connection: HTTP2ClientConnection?
    private var jobs: [ObjectIdentifier: Job] = [:]
    private var closed = false

    init(loop: EventLoop, configuration: APNSClientConfiguration, tls: TLSContext, tokenProvider: APNSTokenProvider?) {
        self.loop = loop
        self.configuration = configuration
        self.tls = tls
        self.tokenProvider = tokenProvider
    }

    /// Starts `request` on the loop thread; `continuation` gets APNs' response or the transport error.
    func start(_ request: HTTP2Request, continuation: CheckedContinuation<HTTPResponse, any Error>) {
        start(Job(request: request, continuation: continuation))
    }

    /// Fails what waits, closes the connection once its open requests finished.
    func close() {
        closed = true
        for job in Array(jobs.values) where job.connection == nil {
            finish(job, .failure(APNSTransportError(.shutdown, "channel management client is shut down")))
        }
        connection?.close()
    }

    private func start(_ job: Job) {
        guard !closed else {
            job.continuation.resume(throwing: APNSTransportError(.shutdown, "channel management client is shut down"))
            return
        }
        jobs[ObjectIdentifier(job)] = job
        let timer = LoopTimer(loop: loop) { [self] in self.timeOut(job) }
        timer.schedule(after: configuration.requestTimeout)
        job.timer = timer
        write(job)
    }

    private func write(_ job: Job) {
        guard !job.finished else { return }
        var request = job.request
        if let tokenProvider {
            do {
                let token = try tokenProvider.currentToken()
                job.jwt = token.jwt
                request.headers.append((APNSHeader.authorization, token.authorization))
            } catch {
                return finish(job, .failure(APNSTransportError(.notSent, "cannot sign the provider token: \(error)")))
            }
        }
        let connection = usableConnection()
        job.connection = connection
        job.attempts += 1
        job.handle = connection.send(request) { [self] result in self.complete(job, result) }
    }

    /// The current connection, or a new one when there is none or it is draining or closed.
    private func usableConnection() -> HTTP2ClientConnection {
        if let connection, connection.state != .draining, connection.state != .closed { return connection }
        let made = HTTP2ClientConnection(loop: loop, configuration: configuration.connectionSettings(tls: tls))
        made.connect()
        connection = made
        return made
    }

    private func complete(_ job: Job, _ result: HTTP2Result) {
        guard !job.finished else { return }
        let via = job.connection
        job.connection = nil
        switch result {
        case .success(let response):
            if response.status == 403, job.jwt != nil, !job.refreshedToken, !closed,
                APNSRejection.parse(status: response.status, body: response.body, apnsID: nil).reason == .expiredProviderToken,
                let tokenProvider, let jwt = job.jwt, (try? tokenProvider.refresh(replacing: jwt)) != nil
            {
                job.refreshedToken = true
                configuration.metrics.record(.resent)
                return write(job)
            }
            finish(job, .success(response))
        case .failure(.notProcessed(let why)):
            guard !closed, job.attempts <= configuration.maxResends else {
                return finish(job, .failure(APNSTransportError(closed ? .shutdown : .notSent, why)))
            }
            configuration.metrics.record(.resent)
            // After GOAWAY or a refused stream a new connection takes it at once; after a connection that
            // failed, the first resend is at once too, later ones after a doubling back-off.
            if via?.state == .closed { job.failedConnections += 1 }
            let delay =
                job.failedConnections <= 1
                ? .zero
                : min(configuration.maxReconnectDelay, configuration.initialReconnectDelay * (1 << min(job.failedConnections - 2, 16)))
            guard delay > .zero else { return write(job) }
            let timer = LoopTimer(loop: loop) { [self] in self.write(job) }
            timer.schedule(after: delay)
            // The timer replaced may be the one firing now (a connection that failed at once): release
            // it on a later loop turn.
            let replaced = job.retryTimer
            job.retryTimer = timer
            loop.execute { withExtendedLifetime(replaced) {} }
        case .failure(.outcomeUnknown(let why)):
            finish(job, .failure(APNSTransportError(.outcomeUnknown, why)))
        case .failure(.cancelled):
            finish(job, .failure(APNSTransportError(.cancelled, "not sent")))
        }
    }

    private func timeOut(_ job: Job) {
        guard !job.finished else { return }
        let connection = job.connection
        finish(job, .failure(APNSTransportError(.timeout, "no answer within \(configuration.requestTimeout / .seconds(1)) s")))
        // Its completion (cancelled, or outcome unknown after the reset) now finds it finished.
        if let connection, !connection.cancel(job.handle) { connection.reset(job.handle) }
    }

    private func finish(_ job: Job, _ result: Result<HTTPResponse, APNSTransportError>) {
        guard !job.finished else { return }
        job.finished = true
        jobs[ObjectIdentifier(job)] = nil
        job.connection = nil
        let timers = [job.timer, job.retryTimer].compactMap { $0 }
        job.timer = nil
        job.retryTimer = nil
        for timer in timers { timer.cancel() }
        // A timer may be the one firing now: release it on a later loop turn.
        loop.execute { withExtendedLifetime(timers) {} }
        job.continuation.resume(with: result.mapError { $0 as any Error })
    }
}

extension LoopBound where Value == APNSChannelManagementTransport {
    /// Sends `request` and returns APNs' response, whatever its status; throws ``APNSTransportError``
    /// when none came. Call from any thread: the work runs on the transport's loop.
    func perform(_ request: HTTP2Request) async throws -> HTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            loop.execute { self.value.start(request, continuation: continuation) }
        }
    }
}
