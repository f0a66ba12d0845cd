import Foundation
import PushHTTP
import PushHTTP1
import PushIO
import PushStore
import PushTLS

/// Sends queued webhook events to their endpoints: claims due events per endpoint (leased in the store),
/// batches up to `batchSize` of them into one signed POST, keeps at most `concurrency` requests in flight
/// per endpoint, and records each attempt (delivered, or back-off, or given up after the retry window).
/// Events are at-least-once: a crash between the answer and its record sends them again.
actor WebhookWorker {
    let webhooks: any WebhookRepository
    let client: HTTPClient
    let settings: WebhookSettings
    let metrics: WebhookMetrics
    let logger: ServiceLogger
    private var inFlight: [String: Int] = [:]
    private var drained: [CheckedContinuation<Void, Never>] = []
    /// Set once `run` is cancelled: requests finishing then start no new ones.
    private var stopping = false

    /// A worker sending from `webhooks` through `client`.
    init(
        webhooks: any WebhookRepository, client: HTTPClient, settings: WebhookSettings, metrics: WebhookMetrics,
        logger: ServiceLogger
    ) {
        self.webhooks = webhooks
        self.client = client
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
    }

    /// Looks at the queue every `pollInterval` until cancelled, then waits for the requests in flight (each
    /// bounded by the timeout) and stops the client's loop.
    func run() async {
        while !Task.isCancelled {
            await pass()
            try? await Task.sleep(for: settings.pollInterval)
        }
        stopping = true
        if inFlight.values.contains(where: { $0 > 0 }) {
            await withCheckedContinuation { drained.append($0) }
        }
        client.loop.shutdown()
    }

    /// Starts what is due for every endpoint (nothing at all, not even a claim, when no event is due).
    func pass() async {
        do {
            guard let due = try await webhooks.nextDue(), due <= Date() else { return }
            for endpoint in try await webhooks.endpoints() { await fill(endpoint) }
        } catch {
            logger.error("webhook.claim_failed", [("error", "\(error)")])
        }
    }

    /// Claims and starts batches for `endpoint` while it has free slots and due events. A slot is taken
    /// before the claim (the actor may run another `fill` while this one waits for the store), so the
    /// bound holds however the calls interleave.
    private func fill(_ endpoint: WebhookEndpoint) async {
        while !stopping, !Task.isCancelled, inFlight[endpoint.id, default: 0] < settings.concurrency {
            inFlight[endpoint.id, default: 0] += 1
            let batch: [WebhookDelivery]
            do {
                batch = try await webhooks.claim(
                    endpointID: endpoint.id, limit: settings.batchSize, lease: settings.lease, now: Date())
            } catch {
                logger.error("webhook.claim_failed", [("endpoint", endpoint.id), ("error", "\(error)")])
                release(endpoint.id)
                return
            }
            guard !batch.isEmpty else {
                release(endpoint.id)
                return
            }
            Task { await self.deliver(batch, to: endpoint) }
        }
    }

    /// Gives a slot back; wakes `run`'s drain when nothing is in flight any more.
    private func release(_ endpointID: String) {
        inFlight[endpointID, default: 1] -= 1
        if inFlight.values.allSatisfy({ $0 <= 0 }) {
            let waiters = drained
            drained = []
            for waiter in waiters { waiter.resume() }
        }
    }

    private func deliver(_ batch: [WebhookDelivery], to endpoint: WebhookEndpoint) async {
        let attempt = await send(batch, to: endpoint)
        do {
            try await webhooks.complete(
                batch.map {
                    WebhookAttempt($0, delivered: attempt.delivered, status: attempt.status, error: attempt.error)
                }, retry: settings.retry, now: Date())
            if attempt.delivered { logger.debug("webhook.delivered", [("endpoint", endpoint.id), ("events", "\(batch.count)")]) }
        } catch {
            logger.error("webhook.record_failed", [("endpoint", endpoint.id), ("error", "\(error)")])
        }
        release(endpoint.id)
        await fill(endpoint)
    }

    /// What one request came to.
    struct Outcome {
        var delivered: Bool
        var status: Int?
        var error: String?
        var label: String
    }

    /// POSTs `batch` as `{"events": [...]}`, signed with the endpoint's secret.
    private func send(_ batch: [WebhookDelivery], to endpoint: WebhookEndpoint) async -> Outcome {
        var body = Array(#"{"events":["#.utf8)
        for (index, delivery) in batch.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += delivery.body
        }
        body += Array("]}".utf8)
        let timestamp = Int64(Date().timeIntervalSince1970)
        let headers = [
            ("Content-Type", "application/json"), ("User-Agent", "sniffmeet-push-webhooks"),
            (WebhookSignature.timestampHeader, "\(timestamp)"),
            (WebhookSignature.signatureHeader, WebhookSignature.sign(body: body, timestamp: timestamp, secret: endpoint.secret)),
        ]
        let started = ContinuousClock.now
        let outcome: Outcome
        do {
            let response = try await client.post(url: endpoint.url, headers: headers, body: body, timeout: settings.timeout)
            outcome =
                (200..<300).contains(response.status)
                ? Outcome(delivered: true, status: response.status, label: "delivered")
                : Outcome(delivered: false, status: response.status, error: "HTTP \(response.status)", label: "http_error")
        } catch let error as IOError {
            outcome = Outcome(
                delivered: false, error: error.description, label: error.kind == .timeout ? "timeout" : "connection_error")
        } catch {
            outcome = Outcome(delivered: false, error: "\(error)", label: "connection_error")
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.recordRequest(endpoint: endpoint.id, outcome: outcome.label, events: batch.count, seconds: seconds)
        if !outcome.delivered {
            logger.warning(
                "webhook.attempt_failed",
                [("endpoint", endpoint.id), ("events", "\(batch.count)"), ("error", outcome.error ?? outcome.label)])
        }
        return outcome
    }
}

extension WebhookWorker {
    /// Replaces the store's configured endpoints with the file's and builds the worker, with an HTTP client on
    /// a loop of its own (TLS verified against the system CAs, ALPN `http/1.1`).
    static func start(
        configuration: PushServiceConfiguration, store: PushRepositories, metrics: ServiceMetrics, logger: ServiceLogger
    ) async throws -> WebhookWorker {
        try await store.webhooks.replaceConfigured(configuration.webhooks.endpoints)
        let tls = try TLSContext.client(TLSClientConfiguration(alpn: ["http/1.1"]))
        let client = HTTPClient(loop: EventLoop(name: "push-webhooks"), tls: tls)
        return WebhookWorker(
            webhooks: store.webhooks, client: client, settings: configuration.webhooks, metrics: metrics.webhooks,
            logger: logger)
    }
}
