import PushIO

extension HTTP2ClientConnection {
    /// Sends a PING now; the keep-alive timer watches for its answer.
    public func ping() {
        loop.preconditionInEventLoop()
        guard let session = currentSession, state == .ready || state == .draining else { return }
        try? session.submitPing()
        pingDeadline = ContinuousClock.now + configuration.pingTimeout
        flush()
    }

    /// The timer that PINGs an idle connection, closes one that stays idle past `idleTimeout`, and fails
    /// one whose PING goes unanswered; nil when neither a PING interval nor an idle timeout is set.
    func makeKeepAliveTimer() -> LoopTimer? {
        guard configuration.pingInterval != nil || configuration.idleTimeout != nil else { return nil }
        let pingTimeout = configuration.pingTimeout
        let period = min(configuration.pingInterval ?? pingTimeout, configuration.idleTimeout ?? pingTimeout, pingTimeout)
        let timer = LoopTimer(loop: loop, repeating: true) { [unowned self] in self.keepAliveTick() }
        timer.schedule(after: max(period / 2, .milliseconds(50)))
        return timer
    }

    private func keepAliveTick() {
        let now = ContinuousClock.now
        if let deadline = pingDeadline, now >= deadline {
            fail(IOError(.timeout, "keep-alive PING not answered within \(configuration.pingTimeout / .seconds(1)) s"))
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
