import APNSCore
import PushHTTP2
import PushIO

/// Request timeouts: one sweep timer finds the sends past their deadline, in deadline order.
extension APNSDispatcher {
    func startSweeping() {
        guard sweepTimer == nil else { return }
        let period = max(.milliseconds(10), min(.milliseconds(250), configuration.requestTimeout / 4))
        let timer = LoopTimer(loop: loop, repeating: true) { [unowned self] in self.sweep() }
        timer.schedule(after: period)
        sweepTimer = timer
    }

    private func sweep() {
        let expired = deadlines.sweep(now: ContinuousClock.now) { live[$0] != nil }
        for id in expired {
            guard let send = live[id] else { continue }
            send.timedOut = true
            if let connection = send.connection {
                if !connection.cancel(send) { connection.reset(send) }
            } else if waiting.remove(id: id) {
                finish(
                    send,
                    .failure(APNSTransportError(.notSent, "request timeout: no connection within \(configuration.requestTimeout / .seconds(1)) s")))
            }
        }
    }
}
