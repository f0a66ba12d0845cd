import PushIO
import PushSync

/// Sends `WATCHDOG=1` every interval, but only while every event loop of the service turns, so systemd
/// restarts the service when one of them is stuck.
///
/// Each interval the watchdog posts a probe (an empty job) to every loop it watches that has none
/// waiting, and pings only when every probe posted before has run: one loop blocked (a handler stuck in a
/// blocking call, a deadlock, a busy loop) or dead leaves its probe waiting, and the pings stop until it
/// turns again. Each interval without a ping is reported with the loops that did not answer. The ticks
/// run on Swift's cooperative pool, so a pool with no thread free stops the pings too.
///
/// The loops are asked for at every tick: a reload replaces the APNs clients, and a replaced client's
/// loop is no longer waited for.
final class SystemdWatchdog: Sendable {
    /// A loop to probe, and its name in reports.
    struct WatchedLoop: Sendable {
        let name: String
        let loop: EventLoop
    }

    /// What one interval ended with.
    enum Tick: Sendable, Equatable {
        /// Every loop answered: `WATCHDOG=1` went out.
        case pinged
        /// No ping: these loops (sorted names) have not run the probe posted to them.
        case withheld(stuck: [String])
    }

    /// Probes posted and not yet run, by loop (the entry holds the loop, so its identity is not reused).
    private typealias Outstanding = [ObjectIdentifier: WatchedLoop]

    private let outstanding: PThreadLock<Outstanding>
    private let ticker: Task<Void, Never>

    private init(outstanding: PThreadLock<Outstanding>, ticker: Task<Void, Never>) {
        self.outstanding = outstanding
        self.ticker = ticker
    }

    /// Probes `loops()` at once, then every `interval` pings through `notifier` when every probe was
    /// answered; `report` hears of each interval's outcome.
    static func start(
        interval: Duration, notifier: SystemdNotifier, loops: @escaping @Sendable () -> [WatchedLoop],
        report: @escaping @Sendable (Tick) -> Void = { _ in }
    ) -> SystemdWatchdog {
        let outstanding = PThreadLock<Outstanding>([:])
        _ = tick(outstanding, loops: loops(), notifier: nil)
        let ticker = Task {
            let clock = ContinuousClock()
            var next = clock.now.advanced(by: interval)
            while !Task.isCancelled {
                do { try await clock.sleep(until: next) } catch { break }
                report(tick(outstanding, loops: loops(), notifier: notifier))
                next = max(next.advanced(by: interval), clock.now)
            }
        }
        return SystemdWatchdog(outstanding: outstanding, ticker: ticker)
    }

    /// One interval: pings (when `notifier` is given) unless a probe is still waiting, then probes every
    /// loop that has none waiting.
    private static func tick(_ outstanding: PThreadLock<Outstanding>, loops: [WatchedLoop], notifier: SystemdNotifier?) -> Tick {
        var current: Outstanding = [:]
        for watched in loops where current[ObjectIdentifier(watched.loop)] == nil {
            current[ObjectIdentifier(watched.loop)] = watched
        }
        let (stuck, probe) = outstanding.withLock { waiting -> ([String], [WatchedLoop]) in
            // Loops no longer served (a replaced client's) are not waited for.
            waiting = waiting.filter { current[$0.key] != nil }
            let stuck = waiting.values.map(\.name).sorted()
            let probe = current.filter { waiting[$0.key] == nil }
            waiting.merge(probe) { old, _ in old }
            return (stuck, Array(probe.values))
        }
        for watched in probe {
            let id = ObjectIdentifier(watched.loop)
            watched.loop.execute { _ = outstanding.withLock { $0.removeValue(forKey: id) } }
        }
        guard stuck.isEmpty else { return .withheld(stuck: stuck) }
        notifier?.watchdog()
        return .pinged
    }

    /// Stops the pings; none goes out once this returns.
    func stop() async {
        ticker.cancel()
        await ticker.value
    }
}
