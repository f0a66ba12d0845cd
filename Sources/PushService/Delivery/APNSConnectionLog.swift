import APNS

/// Writes an APNs client's failed connections to the service log (at most ten lines a minute, then a
/// count of those held back), so a proxy that refuses the tunnel or an unreachable APNs shows up with
/// its reason. Error texts name proxies without their credentials.
struct APNSConnectionLog: APNSClientMetrics {
    let logger: ServiceLogger
    let app: String
    let environment: String
    /// Where the app's connection state is kept for `/healthz` (nil: not kept).
    let health: AppConnectionHealth?
    private let throttle = LogThrottle(limit: 10, window: .seconds(60))

    init(logger: ServiceLogger, app: String = "default", environment: String, health: AppConnectionHealth? = nil) {
        self.logger = logger
        self.app = app
        self.environment = environment
        self.health = health
    }

    func record(_ event: APNSClientEvent) {
        if case .connectionOpened = event { health?.opened(environment) }
        guard case .connectionClosed(let error?) = event else { return }
        health?.failed(environment, error)
        let (write, suppressed) = throttle.admit()
        guard write else { return }
        var fields = [("app", app), ("environment", environment), ("error", error)]
        if suppressed > 0 { fields.append(("suppressed", "\(suppressed)")) }
        logger.warning(error.hasPrefix("proxyRefused") ? "apns.proxy_refused" : "apns.connection_failed", fields)
    }
}
