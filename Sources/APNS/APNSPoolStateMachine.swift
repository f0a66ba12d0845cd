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
}
