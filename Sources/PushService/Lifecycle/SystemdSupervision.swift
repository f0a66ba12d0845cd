import Foundation

/// What `push-server` tells systemd when it runs as a `Type=notify` service: `READY=1` once it serves,
/// `RELOADING=1` and `READY=1` around a SIGHUP reload, `STOPPING=1` when it begins to shut down, and
/// `WATCHDOG=1` while `WatchdogSec=` is set and every event loop of the service turns (`SystemdWatchdog`).
struct SystemdSupervision: Sendable {
    let notifier: SystemdNotifier
    let watchdog: SystemdWatchdog?
    let status: String
    let logger: ServiceLogger

    /// Starts the watchdog pings when systemd asked for them; nil when there is no `NOTIFY_SOCKET`.
    static func start(_ server: PushServer, environment: [String: String]) async -> SystemdSupervision? {
        guard let notifier = SystemdNotifier(environment: environment) else { return nil }
        var watchdog: SystemdWatchdog?
        if let interval = SystemdNotifier.watchdogInterval(environment: environment) {
            let logger = server.logger
            watchdog = SystemdWatchdog.start(
                interval: interval, notifier: notifier, loops: { server.watchedLoops },
                report: { tick in
                    guard case .withheld(let stuck) = tick else { return }
                    logger.warning("systemd.watchdog_withheld", [("stuck_loops", stuck.joined(separator: ","))])
                })
            server.logger.info("systemd.watchdog", [("interval_s", "\(interval)"), ("loops", "\(server.watchedLoops.count)")])
        }
        return SystemdSupervision(
            notifier: notifier, watchdog: watchdog,
            status: "listening on \(server.configuration.host):\(server.port)", logger: server.logger)
    }

    /// `READY=1`: serving (at start and after a reload).
    func ready() {
        if !notifier.ready(status: status) {
            logger.warning("systemd.notify_failed", [("socket", notifier.socketPath)])
        }
    }

    /// `RELOADING=1`: a reload has begun.
    func reloading() {
        notifier.reloading()
    }

    /// No more watchdog pings (systemd stops watching a stopping service), then `STOPPING=1`: nothing
    /// follows it.
    func stopping() async {
        await watchdog?.stop()
        notifier.stopping()
    }
}
