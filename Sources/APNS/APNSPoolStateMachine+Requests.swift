import APNSCore

/// The pool's request side: admitting requests, placing them on connections or in the queue, opening
/// connections for them, and taking them out again.
extension APNSPoolStateMachine {
    /// A request to send: refused during shutdown or while the last connection attempt was refused,
    /// else placed on a connection or queued for one.
    mutating func submit(_ request: Request, now: ContinuousClock.Instant) -> Actions {
        var actions = Actions()
        if shuttingDown {
            actions.append(.fail(request, Self.shutdownError, recorded: false))
            return actions
        }
        if let refused = currentRefusal(now: now, &actions) {
            actions.append(.fail(request, refused, recorded: true))
            return actions
        }
        admit(request, &actions)
        route(request, openSlots: true, writeNow: true, now: now, &actions)
        return actions
    }

    /// Many requests at once: each placed as by ``submit(_:now:)``, and every connection that got some
    /// writes them together afterwards.
    mutating func submit(_ batch: [Request], now: ContinuousClock.Instant) -> Actions {
        var actions = Actions()
        if shuttingDown {
            for request in batch { actions.append(.fail(request, Self.shutdownError, recorded: false)) }
            return actions
        }
        if let refused = currentRefusal(now: now, &actions) {
            for request in batch { actions.append(.fail(request, refused, recorded: true)) }
            return actions
        }
        requests.reserveCapacity(requests.count + batch.count)
        for request in batch { admit(request, &actions) }
        openIdleSlots(now: now, &actions)
        var used: [APNSPoolConnectionID] = []
        for request in batch {
            if let connection = route(request, openSlots: false, writeNow: false, now: now, &actions), !used.contains(connection) {
                used.append(connection)
            }
        }
        for connection in used { actions.append(.writeQueued(connection)) }
        return actions
    }

    private mutating func admit(_ request: Request, _ actions: inout Actions) {
        requests[request.id] = Entry(request: request)
        deadlines.append(deadline: request.deadline, id: request.id)
        if !sweeping {
            sweeping = true
            actions.append(.startSweepTimer(period: configuration.sweepPeriod))
        }
    }

    /// The last refusal, unless the back-off now allows a new attempt (which then starts).
    private mutating func currentRefusal(now: ContinuousClock.Instant, _ actions: inout Actions) -> APNSTransportError? {
        guard refusal != nil else { return nil }
        openIdleSlots(now: now, &actions)
        return refusal
    }

    /// Puts request `id` on the best usable connection, or in the waiting queue; returns the connection.
    @discardableResult
    mutating func route(
        _ id: UInt64, openSlots: Bool, writeNow: Bool, now: ContinuousClock.Instant, _ actions: inout Actions
    ) -> APNSPoolConnectionID? {
        guard let request = requests[id]?.request else { return nil }
        return route(request, openSlots: openSlots, writeNow: writeNow, now: now, &actions)
    }

    /// ``route(_:openSlots:writeNow:now:_:)`` for a live request at hand (one lookup less).
    @discardableResult
    mutating func route(
        _ request: Request, openSlots: Bool, writeNow: Bool, now: ContinuousClock.Instant, _ actions: inout Actions
    ) -> APNSPoolConnectionID? {
        let id = request.id
        if openSlots { openIdleSlots(now: now, &actions) }
        var best: Int?
        for index in slots.indices {
            guard let candidate = slots[index].current, candidate.phase != .stopped else { continue }
            guard let chosen = best, let current = slots[chosen].current else {
                best = index
                continue
            }
            if Self.prefers(candidate, over: current) { best = index }
        }
        guard let best else {
            requests[id]?.location = .waiting
            waiting.append(id)
            scheduleReconnects(now: now, &actions)
            return nil
        }
        slots[best].current!.load += 1
        let connection = slots[best].current!.id
        requests[id]?.location = .connection(connection)
        actions.append(.send(request, on: connection, writeNow: writeNow))
        return connection
    }

    /// Ready before connecting; then one with a free stream; then the least loaded.
    static func prefers(_ candidate: Connection, over current: Connection) -> Bool {
        let ready = candidate.phase == .ready
        let currentReady = current.phase == .ready
        if ready != currentReady { return ready }
        if candidate.hasFreeStream != current.hasFreeStream { return candidate.hasFreeStream }
        return candidate.load < current.load
    }

    /// Opens a connection in every empty slot the back-off allows.
    mutating func openIdleSlots(now: ContinuousClock.Instant, _ actions: inout Actions) {
        for index in slots.indices where slots[index].mayOpen(at: now) {
            refusal = nil
            nextSerial += 1
            let id = APNSPoolConnectionID(slot: index, serial: nextSerial)
            slots[index].current = Connection(id: id)
            slots[index].readySince = nil
            actions.append(.openConnection(id))
        }
    }

    /// Arms the reconnect timer of the empty slot whose back-off ends first (unless one may open now).
    private mutating func scheduleReconnects(now: ContinuousClock.Instant, _ actions: inout Actions) {
        var soonest: Int?
        for index in slots.indices where slots[index].current == nil {
            guard let notBefore = slots[index].notBefore, notBefore > now else { return }
            if let chosen = soonest, slots[chosen].notBefore! <= notBefore { continue }
            soonest = index
        }
        guard let index = soonest, !slots[index].reconnectScheduled else { return }
        slots[index].reconnectScheduled = true
        actions.append(.scheduleReconnect(slot: index, after: slots[index].notBefore! - now))
    }

    /// Routes the waiting requests in order, as long as they find a connection.
    mutating func drainWaiting(now: ContinuousClock.Instant, _ actions: inout Actions) {
        guard !shuttingDown, !waiting.isEmpty else { return }
        let pending = waiting
        waiting.removeAll()
        for (index, id) in pending.enumerated() where route(id, openSlots: true, writeNow: true, now: now, &actions) == nil {
            // Still nowhere to go (route queued it again): keep the rest waiting in order.
            waiting.append(contentsOf: pending[(index + 1)...])
            return
        }
    }

    /// Empties the waiting queue and returns what it held, in order.
    mutating func takeWaiting() -> [UInt64] {
        let pending = waiting
        waiting.removeAll()
        for id in pending { requests[id]?.location = .nowhere }
        return pending
    }

    /// Takes request `id` off its connection's load or the waiting queue and forgets it; nil when it
    /// already ended.
    mutating func remove(_ id: UInt64, _ actions: inout Actions) -> Request? {
        guard let entry = requests.removeValue(forKey: id) else { return nil }
        leave(id, entry.location)
        if requests.isEmpty, drainAwaited {
            drainAwaited = false
            actions.append(.drained)
        }
        return entry.request
    }

    /// Ends request `id` with `error` (counted in the metrics).
    mutating func fail(_ id: UInt64, _ error: APNSTransportError, _ actions: inout Actions) {
        var after = Actions()
        guard let request = remove(id, &after) else { return }
        actions.append(.fail(request, error, recorded: true))
        for action in after { actions.append(action) }
    }

    /// Undoes what `location` counts: a connection's load, a place in the waiting queue.
    mutating func leave(_ id: UInt64, _ location: Location) {
        switch location {
        case .nowhere: break
        case .waiting:
            if let index = waiting.firstIndex(of: id) { waiting.remove(at: index) }
        case .connection(let id):
            if slots[id.slot].current?.id == id { slots[id.slot].current!.load -= 1 }
        }
    }

    static var shutdownError: APNSTransportError { APNSTransportError(.shutdown, "client is shutting down") }
}
