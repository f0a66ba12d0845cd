import PushIO

/// Sends `WATCHDOG=1` from an event loop's own thread every interval, so systemd restarts the service when
/// that loop stops turning (a blocked or dead loop sends nothing).
///
/// `Sendable`: the timer is created, fired and cancelled only on `loop`'s thread (`LoopTimer` checks it on
/// each call).
final class SystemdWatchdog: Sendable {
    private let loop: EventLoop
    private let timer: LoopTimer

    private init(loop: EventLoop, timer: LoopTimer) {
        self.loop = loop
        self.timer = timer
    }

    /// Starts pinging on `loop` every `interval`; the first ping goes out at once.
    static func start(loop: EventLoop, interval: Duration, notifier: SystemdNotifier) async throws -> SystemdWatchdog {
        try await loop.submit {
            let timer = LoopTimer(loop: loop, repeating: true) {
                loop.preconditionInEventLoop()
                notifier.watchdog()
            }
            timer.schedule(after: interval)
            notifier.watchdog()
            return SystemdWatchdog(loop: loop, timer: timer)
        }
    }

    /// Stops the pings (on the loop thread; call while the loop still runs).
    func stop() async {
        let timer = self.timer
        let loop = self.loop
        _ = try? await loop.submit {
            loop.preconditionInEventLoop()
            timer.cancel()
        }
    }

    /// True while the pings are scheduled (asked on the loop thread).
    var isPinging: Bool {
        get async {
            let timer = self.timer
            return (try? await loop.submit { timer.isScheduled }) ?? false
        }
    }
}
