/// Where the load should go right now: the port of the live push-server, or "down" while it restarts.
/// Posters that hit a dead server wait here for the next generation instead of spinning.
actor ChaosTarget {
    private var port: Int
    private var generation = 0
    private var down = false
    private var killsOver = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(port: Int) {
        self.port = port
    }

    /// The live server's port and generation, waiting while it is down.
    func current() async -> (port: Int, generation: Int) {
        while down && !killsOver { await park() }
        return (port, generation)
    }

    /// After a failure against `generation`: returns once a newer server is up, or at once when no more
    /// kills are coming (the failure was not a kill, or the restart failed; the caller gives up after a few).
    func waitForNewer(than generation: Int) async {
        while self.generation == generation && !killsOver { await park() }
    }

    /// The server is about to be killed.
    func markDown() {
        down = true
    }

    /// A restarted server listens on `port`.
    func publish(port: Int) {
        self.port = port
        generation += 1
        down = false
        wakeAll()
    }

    /// No more kills (or the killer failed): nobody should wait for a restart any longer.
    func finishKills() {
        killsOver = true
        down = false
        wakeAll()
    }

    private func park() async {
        await withCheckedContinuation { waiters.append($0) }
    }

    private func wakeAll() {
        let woken = waiters
        waiters.removeAll()
        for waiter in woken { waiter.resume() }
    }
}
