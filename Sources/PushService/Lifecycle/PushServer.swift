import Foundation
public import ProfileDrop
import PushHTTP1
import PushIO
public import PushStore
import PushStoreSQL

/// The running service: HTTP API on its own event loop, the store, the match service and the outbox worker.
///
/// `start` wires everything from a configuration and the two APNs senders; `shutdown` stops accepting,
/// lets in-flight work finish up to the deadline, closes the senders and releases the database.
public final class PushServer: Sendable {
    /// The bound HTTP port.
    public let port: Int
    /// The REST API; it holds the store, the match service, the metrics, the senders and the reloader
    /// the rest of the server shares.
    let api: PushAPI
    let worker: OutboxWorker
    let http: HTTPServer
    let loop: EventLoop
    /// The webhook client's event loop.
    let webhookLoop: EventLoop
    let background: Task<Void, Never>
    let gate: RequestGate
    /// The web console at `/console`.
    let console: PushConsole
    /// Every API route with the scope it needs (the OpenAPI document must list the same operations and scopes).
    public let routes: [APIRoute]
    /// Every API operation as `"METHOD /pattern"`.
    public var operations: Set<String> { Set(routes.map(\.operation)) }

    /// The store's repositories (tests read them to check what was written).
    public var repositories: PushRepositories { api.repositories }
    /// The profile-drop service.
    public var match: MatchService { api.match }
    /// Metrics shared by the API and the worker.
    public var metrics: ServiceMetrics { api.metrics }
    var senders: PushSenders { api.senders }
    var logger: ServiceLogger { api.logger }
    var configuration: PushServiceConfiguration { api.configuration }
    /// Reloads TLS files, API keys and APNs credentials (SIGHUP, `POST /v1/admin/reload`).
    var reloader: ServiceReloader { api.reloader }

    private init(
        port: Int, api: PushAPI, worker: OutboxWorker, http: HTTPServer, loop: EventLoop, webhookLoop: EventLoop,
        background: Task<Void, Never>, gate: RequestGate, console: PushConsole, routes: [APIRoute]
    ) {
        self.port = port
        self.api = api
        self.worker = worker
        self.http = http
        self.loop = loop
        self.webhookLoop = webhookLoop
        self.background = background
        self.gate = gate
        self.console = console
        self.routes = routes
    }

    /// Opens the store the configuration names (`openRepositories`), restores pending drops, starts the
    /// worker and listens.
    public static func start(
        configuration: PushServiceConfiguration, senders: PushSenders,
        logger: ServiceLogger
    ) async throws -> PushServer {
        try await start(
            configuration: configuration, repositories: try await configuration.openRepositories(),
            senders: senders, logger: logger)
    }

    /// Like `start(configuration:senders:logger:)` with the configured apps' clients, whose credentials
    /// SIGHUP and `POST /v1/admin/reload` then reload.
    public static func start(
        configuration: PushServiceConfiguration, apps: PushAppSet, logger: ServiceLogger
    ) async throws -> PushServer {
        try await start(
            configuration: configuration, repositories: try configuration.openRepositories(),
            senders: apps.senders, apps: apps, logger: logger)
    }

    /// Serves the data in `repositories` (any store): starts the worker and listens.
    public static func start(
        configuration: PushServiceConfiguration, repositories store: PushRepositories,
        senders: PushSenders, apps: PushAppSet? = nil, logger: ServiceLogger
    ) async throws -> PushServer {
        if store.database.recoveredAtOpen > 0 {
            logger.info("outbox.recovered", [("rows", "\(store.database.recoveredAtOpen)")])
        }
        let metrics = ServiceMetrics()
        metrics.register(apps: senders.apps.map(\.name))
        // Rows a crash left in flight go out again with their outcome unknown: at most what was in flight.
        metrics.recordResend(cause: "outcome_unknown", count: store.database.recoveredAtOpen)
        let waiters = PushWaiters()
        let worker = OutboxWorker(
            outbox: store.outbox, devices: store.devices, senders: senders, metrics: metrics,
            logger: logger, waiters: waiters, maxInFlight: configuration.maxInFlight,
            claimBatch: configuration.claimBatch, derivesCollapseID: configuration.derivesCollapseID)
        // Everyone else enqueues through an outbox that wakes the worker.
        var repositories = store
        repositories.outbox = WakingOutboxRepository(base: store.outbox, wake: { worker.wake() })
        let condition = DropCondition(
            maxDistanceMeters: configuration.dropMaxDistanceMeters,
            maxAngleDegrees: configuration.dropMaxAngleDegrees,
            window: configuration.dropWindow)
        let match = MatchService(repositories: repositories, condition: condition, queued: { worker.wake() })
        let tls = configuration.tls.isEnabled ? HTTPServerTLS(context: try ListenerTLS.context(configuration.tls)) : nil
        let keys = ReloadableAuthenticator(keys: configuration.apiKeys)
        apps?.recordCertificates(in: metrics)
        let reloader = ServiceReloader(
            configuration: configuration, apps: apps, keys: keys, listenerTLS: tls, logger: logger, metrics: metrics,
            webhooks: store.webhooks)
        let api = PushAPI(
            repositories: repositories, writer: OutboxWriter(outbox: repositories.outbox), match: match,
            waiters: waiters, metrics: metrics, logger: logger,
            authenticator: keys, configuration: configuration,
            senders: senders, listenerTLS: tls, reloader: reloader,
            admission: OutboxAdmission(bound: configuration.outboxBound, apps: senders.apps.map(\.name)))
        let router = api.router
        let console = PushConsole(
            api: api, signer: ConsoleSessionSigner(secret: consoleSecret(configuration, logger: logger)),
            history: ConsoleOutcomeHistory(), mock: ConsoleMockBox(), secure: tls != nil)
        let webhooks = try await WebhookWorker.start(configuration: configuration, store: store, metrics: metrics, logger: logger)
        let gate = RequestGate()
        let loop = EventLoop(name: "push-http")
        let http: HTTPServer
        do {
            http = try HTTPServer(
                loop: loop, host: configuration.host, port: configuration.port,
                maxBodyBytes: configuration.maxBodyBytes,
                timeout: configuration.httpTimeout, tls: tls
            ) { request, responder in
                Task { responder.respond(await Self.serve(request, api: api, router: router, console: console, gate: gate)) }
            }
        } catch {
            loop.shutdown()
            webhooks.client.loop.shutdown()
            throw ConfigurationError("cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
        await worker.start(tick: configuration.retryTick)
        let retention = RetentionJob(repositories: store, policy: configuration.retention, metrics: metrics, logger: logger)
        let background = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await retention.loop() }
                group.addTask { await webhooks.run() }
                group.addTask { await console.history.run(metrics: metrics) }
                if let shared = store.database as? PostgresDatabase {
                    // Rows other instances enqueue (and matches they store) wake this worker too.
                    group.addTask {
                        var generation = shared.outboxGeneration
                        while !Task.isCancelled {
                            generation = await shared.waitForOutbox(after: generation)
                            worker.wake()
                        }
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(1))
                        do { try await match.expireDue() } catch { logger.error("drops.expire_failed", [("error", "\(error)")]) }
                    }
                }
            }
        }
        let server = PushServer(
            port: http.port, api: api, worker: worker, http: http, loop: loop, webhookLoop: webhooks.client.loop,
            background: background, gate: gate, console: console, routes: router.routes)
        let pendingDrops = try await store.drops.pending().count
        logger.info(
            "server.started",
            [
                ("address", "\(configuration.host):\(http.port)"),
                ("pending_drops", "\(pendingDrops)"),
                ("database", configuration.databaseDescription),
                ("apns_proxy", configuration.apns.proxySummary),
                ("apps", senders.apps.map(\.name).joined(separator: ",")),
                ("tls", tls == nil ? "off" : configuration.tls.clientCAPath == nil ? "on" : "client-certificates"),
            ])
        return server
    }
}

extension PushServer {
    /// Lets the console show the embedded mock APNs: its control API and what it received.
    public func showMock(_ view: ConsoleMockView) {
        console.mock.set(view)
    }

    /// The console's session secret: the configured one, or random bytes (then sessions hold on this
    /// instance only, and only until it restarts; the log says so).
    static func consoleSecret(_ configuration: PushServiceConfiguration, logger: ServiceLogger) -> [UInt8] {
        if let secret = configuration.consoleSessionSecret { return Array(secret.utf8) }
        logger.info(
            "console.session_secret_generated",
            [("note", "console sessions hold on this instance only until it restarts; set console_session_secret to share them")])
        return ConsoleSessionSigner.randomBytes(32)
    }
}

extension PushServer {
    /// Every event loop the service runs now, named for reports: the HTTP listener's, the webhook
    /// client's, and those of each app's APNs clients and channel management clients (the current ones:
    /// a reload replaces them). The systemd watchdog pings only while all of them turn.
    var watchedLoops: [SystemdWatchdog.WatchedLoop] {
        var loops = [SystemdWatchdog.WatchedLoop(name: "http", loop: loop), SystemdWatchdog.WatchedLoop(name: "webhooks", loop: webhookLoop)]
        for app in senders.apps {
            let owners: [(String, Any?)] = [
                ("apns \(app.name) production", app.production), ("apns \(app.name) development", app.development),
                ("apns-channels \(app.name) production", app.productionChannels),
                ("apns-channels \(app.name) development", app.developmentChannels),
            ]
            for (name, owner) in owners {
                for eventLoop in (owner as? any EventLoopOwner)?.eventLoops ?? [] {
                    loops.append(SystemdWatchdog.WatchedLoop(name: name, loop: eventLoop))
                }
            }
        }
        return loops
    }
}
