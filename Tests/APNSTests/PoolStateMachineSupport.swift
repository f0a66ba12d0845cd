import APNSCore
import PushIO

@testable import APNS

/// A request as the pool sees it: an id and a deadline.
struct PoolRequest: APNSPoolRequest {
    let id: UInt64
    let deadline: ContinuousClock.Instant
}

typealias Pool = APNSPoolStateMachine<PoolRequest>

/// A pool driven by hand: a clock that moves only when told, jitter fixed at its largest factor, and
/// every action rendered as one short line ("open 0.1", "send 3 on 0.1", "fail 3 notSent"...).
struct PoolHarness {
    var pool: Pool
    var now: ContinuousClock.Instant
    let origin: ContinuousClock.Instant
    var nextID: UInt64 = 0

    init(
        connections: Int = 1, maxResends: Int = 5, requestTimeout: Duration = .seconds(30),
        initialReconnectDelay: Duration = .seconds(1), maxReconnectDelay: Duration = .seconds(60),
        failsFastOnHandshakeFailure: Bool = false
    ) {
        var configuration = Pool.Configuration()
        configuration.connections = connections
        configuration.maxResends = maxResends
        configuration.requestTimeout = requestTimeout
        configuration.initialReconnectDelay = initialReconnectDelay
        configuration.maxReconnectDelay = maxReconnectDelay
        configuration.failsFastOnHandshakeFailure = failsFastOnHandshakeFailure
        pool = Pool(configuration: configuration, jitter: { 1.0 })
        origin = ContinuousClock.now
        now = origin
    }

    /// Moves the clock on.
    mutating func advance(_ duration: Duration) { now += duration }

    /// A new request whose deadline is the request timeout from now.
    mutating func makeRequest() -> PoolRequest {
        nextID += 1
        return PoolRequest(id: nextID, deadline: now + pool.configuration.requestTimeout)
    }

    mutating func submit() -> [String] {
        let request = makeRequest()
        return Self.lines(pool.submit(request, now: now))
    }

    mutating func submit(count: Int) -> [String] {
        var batch: [PoolRequest] = []
        for _ in 0..<count { batch.append(makeRequest()) }
        return Self.lines(pool.submit(batch, now: now))
    }

    mutating func ready(_ id: APNSPoolConnectionID, streamLimit: Int = 1000) -> [String] {
        Self.lines(pool.connectionReady(id, streamLimit: streamLimit, now: now))
    }

    mutating func closed(_ id: APNSPoolConnectionID, _ error: IOError? = nil) -> [String] {
        Self.lines(pool.connectionClosed(id, error: error, now: now))
    }

    mutating func ended(_ request: UInt64, _ ending: Pool.Ending) -> [String] {
        Self.lines(pool.exchangeEnded(request, ending, now: now))
    }

    /// The answer to `request` arrived: true when the pool still counted it.
    mutating func answered(_ request: UInt64) -> [String]? {
        guard let (_, actions) = pool.answered(request) else { return nil }
        return Self.lines(actions)
    }

    mutating func sweep() -> [String] { Self.lines(pool.sweep(now: now)) }

    mutating func reconnectTimerFired(slot: Int = 0) -> [String] {
        Self.lines(pool.reconnectTimerFired(slot: slot, now: now))
    }

    /// The connection of `slot` (its id is the slot and the pool's count of connections opened).
    static func connection(_ slot: Int, _ serial: Int) -> APNSPoolConnectionID { APNSPoolConnectionID(slot: slot, serial: serial) }

    /// How long slot 0 waits before its next connection (nil: no back-off).
    var backOff: Duration? { pool.slots[0].notBefore.map { $0 - now } }

    /// How many requests each live connection carries, by id.
    var loads: [String: Int] {
        var loads: [String: Int] = [:]
        for slot in pool.slots {
            if let connection = slot.current { loads[connection.id.description] = connection.load }
        }
        return loads
    }

    /// The requests handed to a connection, in order, from rendered actions.
    static func sends(in lines: [String]) -> [String] { lines.filter { $0.hasPrefix("send ") } }

    static func lines(_ actions: Pool.Actions) -> [String] { actions.map(line) }

    static func line(_ action: Pool.Action) -> String {
        switch action {
        case .openConnection(let id): "open \(id)"
        case .send(let request, let id, let writeNow): "send \(request.id) on \(id)" + (writeNow ? "" : " queued")
        case .writeQueued(let id): "write \(id)"
        case .cancelQueued(let request, let id): "cancel \(request.id) on \(id)"
        case .cancelOrReset(let request, let id): "cancel or reset \(request.id) on \(id)"
        case .fail(let request, let error, let recorded): "fail \(request.id) \(error.kind)" + (recorded ? "" : " unrecorded")
        case .record(let event): "record \(event)"
        case .startSweepTimer(let period): "sweep every \(period)"
        case .scheduleReconnect(let slot, let delay): "reconnect \(slot) after \(delay)"
        case .cancelTimers: "cancel timers"
        case .closeConnection(let id, let abort): (abort ? "abort " : "close ") + id.description
        case .drained: "drained"
        }
    }
}
