import APNSCore

/// What the pool needs of a request: who it is and when it must be done.
protocol APNSPoolRequest {
    var id: UInt64 { get }
    var deadline: ContinuousClock.Instant { get }
}

/// One connection of the pool: its slot and a number no other connection of the pool had.
struct APNSPoolConnectionID: Hashable, Sendable, CustomStringConvertible {
    let slot: Int
    let serial: Int

    var description: String { "\(slot).\(serial)" }
}

/// The connection pool's decisions, without I/O: which connection a request goes to (ready ones first,
/// then one with a free stream under the peer's MAX_CONCURRENT_STREAMS, then the least loaded), when a
/// connection opens, what is resent after GOAWAY, a refused stream or a closed connection, the reconnect
/// back-off, request timeouts, and drain and shutdown.
///
/// It takes events (``submit(_:now:)``, ``connectionReady(_:streamLimit:now:)``, ``goAway(_:)``,
/// ``exchangeEnded(_:_:now:)``, ``sweep(now:)``...) and returns the ``Action``s that carry them out;
/// ``APNSDispatcher`` performs them on the client's loop (connects, writes, timers, metrics). The clock
/// and the back-off's jitter come from outside, so its tests need no sockets and no waiting.
struct APNSPoolStateMachine<Request: APNSPoolRequest> {
    /// The rules' parameters (from ``APNSClientConfiguration``).
    struct Configuration {
        var connections = 1
        var maxResends = 5
        var requestTimeout: Duration = .seconds(30)
        var initialReconnectDelay: Duration = .seconds(1)
        var maxReconnectDelay: Duration = .seconds(60)
        var failsFastOnHandshakeFailure = false

        init() {}

        init(_ client: APNSClientConfiguration) {
            connections = max(1, client.connections)
            maxResends = client.maxResends
            requestTimeout = client.requestTimeout
            initialReconnectDelay = client.initialReconnectDelay
            maxReconnectDelay = client.maxReconnectDelay
            failsFastOnHandshakeFailure = client.failsFastOnHandshakeFailure
        }

        /// How often the sweep timer looks for requests past their deadline.
        var sweepPeriod: Duration { max(.milliseconds(10), min(.milliseconds(250), requestTimeout / 4)) }
    }

    /// What the loop adapter does for the pool.
    enum Action {
        /// Make connection `id` and connect it.
        case openConnection(APNSPoolConnectionID)
        /// Hand `request` to connection `id` (which queues it until a stream is free); with `writeNow`
        /// false it only queues it, and a ``writeQueued(_:)`` follows.
        case send(Request, on: APNSPoolConnectionID, writeNow: Bool)
        /// Write what was queued on connection `id`.
        case writeQueued(APNSPoolConnectionID)
        /// Take `request` off connection `id`'s queue if it is still there (it then ends `.cancelled`).
        case cancelQueued(Request, on: APNSPoolConnectionID)
        /// The request timed out on connection `id`: take it off the queue, or reset its stream.
        case cancelOrReset(Request, on: APNSPoolConnectionID)
        /// End `request` with `error`; `recorded` says whether the failure counts in the metrics.
        case fail(Request, APNSTransportError, recorded: Bool)
        /// Count an event in the metrics.
        case record(APNSClientEvent)
        /// Start the repeating timer that calls ``sweep(now:)``.
        case startSweepTimer(period: Duration)
        /// Call ``reconnectTimerFired(slot:now:)`` after `delay`.
        case scheduleReconnect(slot: Int, after: Duration)
        /// Stop the sweep timer and every reconnect timer.
        case cancelTimers
        /// Close connection `id`: with GOAWAY after its streams finished, or at once (`abort`).
        case closeConnection(APNSPoolConnectionID, abort: Bool)
        /// No request is left: whoever waits for the drain may go on.
        case drained
    }

    /// The actions of one event, in order: the first one is kept inline, so the common single action
    /// costs no allocation.
    struct Actions: Sequence {
        private var first: Action?
        private var rest: [Action] = []

        var isEmpty: Bool { first == nil }

        mutating func append(_ action: Action) {
            if first == nil { first = action } else { rest.append(action) }
        }

        func makeIterator() -> Iterator { Iterator(first: first, rest: rest.makeIterator()) }

        struct Iterator: IteratorProtocol {
            var first: Action?
            var rest: IndexingIterator<[Action]>

            mutating func next() -> Action? {
                if let action = first {
                    first = nil
                    return action
                }
                return rest.next()
            }
        }
    }

    /// How an exchange ended without an answer (what ``HTTP2ClientFailure`` says).
    enum Ending {
        /// Never processed by the server (GOAWAY, refused stream, the connection closed before it was written).
        case notProcessed(String)
        /// Written, but no whole answer came.
        case outcomeUnknown(String)
        /// Taken off the connection's queue before it was written.
        case cancelled
    }

    /// A connection's state as the pool sees it.
    enum Phase: Equatable {
        /// Connecting (TCP, proxy, TLS, first SETTINGS).
        case connecting
        /// Taking requests.
        case ready
        /// Draining or closed, and the pool not yet told why: takes no requests.
        case stopped
    }

    /// The live connection of a slot.
    struct Connection {
        let id: APNSPoolConnectionID
        var phase: Phase = .connecting
        /// Requests handed to it and not yet ended (queued or on a stream).
        var load = 0
        /// The peer's MAX_CONCURRENT_STREAMS capped by ours, once known (ready).
        var streamLimit: Int?

        /// Ready with a stream free for one more request.
        var hasFreeStream: Bool { phase == .ready && load < (streamLimit ?? .max) }
    }

    /// One of the pool's connection places: its live connection, those retired after a GOAWAY, and the
    /// reconnect back-off.
    struct Slot {
        var current: Connection?
        var retiring: Set<APNSPoolConnectionID> = []
        var consecutiveFailures = 0
        /// No new connection before this (nil: no back-off).
        var notBefore: ContinuousClock.Instant?
        var readySince: ContinuousClock.Instant?
        var reconnectScheduled = false

        func mayOpen(at now: ContinuousClock.Instant) -> Bool { current == nil && notBefore.map { now >= $0 } ?? true }
    }

    /// Where a request is.
    enum Location: Equatable {
        case nowhere
        case waiting
        case connection(APNSPoolConnectionID)
    }

    struct Entry {
        let request: Request
        var location: Location = .nowhere
        var resends = 0
        var timedOut = false
    }

    let configuration: Configuration
    /// The back-off's jitter: a factor in 0.5...1.0.
    var jitter: () -> Double
    var slots: [Slot]
    var requests: [UInt64: Entry] = [:]
    /// Requests waiting for a connection, in arrival order.
    var waiting: [UInt64] = []
    var deadlines = DeadlineQueue()
    var sweeping = false
    var shuttingDown = false
    /// Shutdown waits for the drain.
    var drainAwaited = false
    /// The proxy's (or the TLS handshake's) last refusal while no new connection attempt is under way:
    /// requests fail at once with it instead of waiting for a connection that will be refused again.
    var refusal: APNSTransportError?
    var nextSerial = 0

    init(configuration: Configuration, jitter: @escaping () -> Double = { Double.random(in: 0.5...1.0) }) {
        self.configuration = configuration
        self.jitter = jitter
        slots = Array(repeating: Slot(), count: max(1, configuration.connections))
    }

    // MARK: queries

    /// Requests waiting or on a connection.
    var liveCount: Int { requests.count }
    /// Connections ready to take requests.
    var readyConnections: Int { slots.reduce(0) { $0 + ($1.current?.phase == .ready ? 1 : 0) } }
    /// Each slot's live connection.
    var currentConnections: [APNSPoolConnectionID] { slots.compactMap { $0.current?.id } }
    /// Where request `id` is (nil once it ended).
    func location(of id: UInt64) -> Location? { requests[id]?.location }

    // MARK: requests

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
