import PushIO

extension HTTP2ClientConnection {
    /// Sends a PING now; the keep-alive timer watches for its answer.
    public func ping() {
        guard let session = currentSession, state == .ready || state == .draining else { return }
        try? session.submitPing()
        pingDeadline = MonotonicClock.now + configuration.pingTimeout
        flush()
    }

    /// The timer that PINGs an idle connection, closes one that stays idle past `idleTimeout`, and fails
    /// one whose PING goes unanswered; nil when neither a PING interval nor an idle timeout is set.
    func makeKeepAliveTimer() -> LoopTimer? {
        guard configuration.pingInterval != nil || configuration.idleTimeout != nil else { return nil }
        let period = min(configuration.pingInterval ?? .infinity, configuration.idleTimeout ?? .infinity, configuration.pingTimeout)
        let timer = LoopTimer(loop: loop, repeating: true) { [unowned self] in self.keepAliveTick() }
        timer.schedule(after: max(period / 2, 0.05))
        return timer
    }

    private func keepAliveTick() {
        let now = MonotonicClock.now
        if let deadline = pingDeadline, now >= deadline {
            fail(IOError(.timeout, "keep-alive PING not answered within \(configuration.pingTimeout) s"))
            return
        }
        let idle = now - lastActivity
        if openCount == 0, queue.isEmpty, let idleTimeout = configuration.idleTimeout, idle >= idleTimeout, state == .ready {
            close()
            return
        }
        if pingDeadline == nil, let interval = configuration.pingInterval, idle >= interval {
            ping()
        }
    }
}
