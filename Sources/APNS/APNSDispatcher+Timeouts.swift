import APNSCore
import PushHTTP2
import PushIO

/// Request timeouts: one sweep timer finds the sends past their deadline, in deadline order.
extension APNSDispatcher {
    func startSweeping() {
        guard sweepTimer == nil else { return }
        let period = max(0.01, min(0.25, configuration.requestTimeout / 4))
        let timer = LoopTimer(loop: loop, repeating: true) { [unowned self] in self.sweep() }
        timer.schedule(after: period)
        sweepTimer = timer
    }

    private func sweep() {
        let now = MonotonicClock.now
        while deadlineHead < deadlines.count, deadlines[deadlineHead].deadline <= now {
            let id = deadlines[deadlineHead].id
            deadlineHead += 1
            guard let send = live[id] else { continue }
            send.timedOut = true
            if let connection = send.connection {
                if !connection.cancel(send) { connection.reset(send) }
            } else if waiting.remove(id: id) {
                finish(send, .failure(APNSTransportError(.notSent, "request timeout: no connection within \(configuration.requestTimeout) s")))
            }
        }
        if deadlineHead > 1024, deadlineHead * 2 > deadlines.count {
            deadlines.removeFirst(deadlineHead)
            deadlineHead = 0
        }
    }
}
