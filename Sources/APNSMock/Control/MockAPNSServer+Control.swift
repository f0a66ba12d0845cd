public import APNSCore
import PushHTTP2
import PushIO
import PushSync

extension MockAPNSServer {
    /// The fault knobs in force now.
    public var knobs: MockAPNSKnobs {
        core.knobs.withLock { $0 }
    }

    /// Changes the fault knobs; they apply from each connection's next request on, and a changed stream
    /// limit is also announced to open connections at once. Returns the knobs now in force.
    @discardableResult
    public func updateKnobs(_ change: (inout MockAPNSKnobs) -> Void) -> MockAPNSKnobs {
        let updated = core.knobs.withLock { knobs -> MockAPNSKnobs in
            change(&knobs)
            return knobs
        }
        forEachConnection { $0.applyStreamLimit(updated) }
        return updated
    }

    /// Adds a rule after the others (see `MockAPNSRule` for the order) and returns its id.
    @discardableResult
    public func addRule(_ rule: MockAPNSRule) -> Int {
        core.rules.add(rule)
    }

    /// Removes rule `id`; false when there is no such rule.
    @discardableResult
    public func removeRule(id: Int) -> Bool {
        core.rules.remove(id: id)
    }

    /// The rules in order, with how often each answered.
    public func rules() -> [MockAPNSRuleStatus] {
        core.rules.statuses
    }

    /// Removes every rule.
    public func clearRules() {
        core.rules.clear()
    }

    /// The records that pass `filter`, in decision order.
    public func records(matching filter: MockAPNSRecordFilter) -> [MockAPNSRecord] {
        core.recorder.records.filter(filter.matches)
    }

    /// Waits until `count` records pass `filter` (kept now or arriving later; woken by each new record,
    /// no polling) and returns them, or nil when `timeout` passes first or the task is cancelled.
    public func waitForRecords(
        count: Int, matching filter: MockAPNSRecordFilter = .all,
        timeout: Duration
    ) async -> [MockAPNSRecord]? {
        let recorder = core.recorder
        let reached = await withTaskGroup(of: Bool.self) { group -> Bool in
            group.addTask { await recorder.waitForRecords(count: count, matching: filter) }
            group.addTask {
                // The deadline of the wait, not a poll: the recorder wakes the other task.
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        return reached ? records(matching: filter) : nil
    }

    /// Sends GOAWAY with `reason` on every open connection now (requests already received are still
    /// answered); returns how many connections got one. Blocks until the loop has queued the frames.
    @discardableResult
    public func goAwayAll(reason: APNSRejectionReason = .shutdown) -> Int {
        let server = self.server
        let work: @Sendable () -> Int = {
            let handlers = server.openConnections.compactMap { $0.handler as? MockAPNSConnectionHandler }
            for handler in handlers { handler.goAwayNow(reason) }
            return handlers.count
        }
        if loop.inEventLoop { return work() }
        return (try? loop.submitSync(work)) ?? 0
    }

    /// Back to the state at start: no rules, the configuration's knobs, no token state, no channels, no
    /// records or counters (connection totals stay). The programmable handler stays.
    public func resetAll() {
        core.rules.clear()
        core.knobs.withLock { $0 = MockAPNSKnobs(configuration) }
        core.registry.clear()
        core.channels.clear()
        core.recorder.reset()
        let knobs = self.knobs
        forEachConnection { $0.applyStreamLimit(knobs) }
    }

    /// Runs `body` for each open connection's handler on the server's loop.
    private func forEachConnection(_ body: @escaping @Sendable (MockAPNSConnectionHandler) -> Void) {
        let server = self.server
        loop.executeOrRun {
            for connection in server.openConnections {
                if let handler = connection.handler as? MockAPNSConnectionHandler { body(handler) }
            }
        }
    }
}
