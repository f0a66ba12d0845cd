import APNSCore
public import Foundation
import PushSync

/// Counters, gauges and the send-latency histogram behind `GET /metrics`. Thread-safe.
public final class ServiceMetrics: Sendable {
    /// Upper bounds (seconds) of the send latency histogram buckets.
    public static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct PushKey: Hashable {
        var app: String
        var outcome: String
        var reason: String
    }
    /// One app's connections to one environment.
    struct AppEnvironment: Hashable {
        var app: String
        var environment: String
    }
    /// The send latency histogram of one app.
    struct Latency {
        var counts = [Int](repeating: 0, count: ServiceMetrics.latencyBuckets.count)
        var count = 0
        var sum = 0.0

        mutating func observe(_ seconds: Double, times: Int) {
            if let bucket = ServiceMetrics.latencyBuckets.firstIndex(where: { seconds <= $0 }) { counts[bucket] += times }
            count += times
            sum += seconds * Double(times)
        }
    }
    struct RequestKey: Hashable {
        var route: String
        var status: Int
    }
    struct LimitKey: Hashable {
        var key: String
        var limit: String
    }

    struct State {
        var pushes: [PushKey: Int] = [:]
        var requests: [RequestKey: Int] = [:]
        var enqueued = 0
        var latency: [String: Latency] = [:]
        var inFlight = 0
        var health: [AppEnvironment: APNSHealth] = [:]
        var authFailures = 0
        var rateLimited: [LimitKey: Int] = [:]
        /// Known invalidating reasons start at zero, so the series exist before the first invalidation.
        var invalidated: [String: Int] = Dictionary(uniqueKeysWithValues: ServiceMetrics.invalidationReasons.map { ($0, 0) })
        var certificateNotAfter: [AppEnvironment: Double] = [:]
        /// Every cause starts at zero, so the series exist before the first re-send.
        var staleCompletions = 0
        var completeRetries = 0
        /// Failed writes of outcomes by kind (`OutboxCompleteFailure`): transient, per write; permanent, per
        /// row refused on its own. Both start at zero.
        var completeFailures = ["transient": 0, "permanent": 0]
        /// Rows whose outcome the store refused on its own for good, held until written.
        var unwritableOutcomes = 0
        /// How long each write of send outcomes took (successful or not).
        var completeLatency = Latency()
        /// Pushes refused by the outbox bound, by app ("" for the whole outbox) and limit (rows, bytes).
        var outboxRefusals: [String: Int] = [:]
        var leaseRenewals = 0
        var leasesLost = 0
        var purged: [String: Int] = Dictionary(uniqueKeysWithValues: RetentionTable.allCases.map { ($0.rawValue, 0) })
        var resends: [String: Int] = Dictionary(uniqueKeysWithValues: ServiceMetrics.resendCauses.map { ($0, 0) })
    }

    /// Why a notification goes back to the queue to be sent again: APNs answered 429/500/503
    /// (`retryable_rejection`), the transport failed before it was sent (`not_sent`), or while it was on the
    /// wire, so APNs may have delivered it (`outcome_unknown`: the only cause that can duplicate).
    public static let resendCauses = ["not_sent", "outcome_unknown", "retryable_rejection"]

    /// The APNs reasons that invalidate a device token (each a `push_tokens_invalidated_total` series from the start).
    public static let invalidationReasons = APNSRejectionReason.allKnown.filter(\.invalidatesToken).map(\.rawValue)

    /// Every counter, behind one lock (read by the Prometheus exposition in `ServiceMetrics+Prometheus.swift`).
    let state = PThreadLock(State())
    /// Webhook deliveries by endpoint and outcome.
    public let webhooks = WebhookMetrics()
    /// Live Activity updates by the priority their budget let them go at.
    public let liveActivities = LiveActivityMetrics()

    /// Empty metrics.
    public init() {}

    /// Starts each app's latency histogram at zero, so its series exist before the first send.
    public func register(apps: [String]) {
        state.withLock { state in
            for app in apps where state.latency[app] == nil { state.latency[app] = Latency() }
        }
    }

    /// Counts one answered HTTP request under its route pattern (or `unmatched`).
    public func recordRequest(route: String, status: Int) {
        state.withLock { $0.requests[RequestKey(route: route, status: status), default: 0] += 1 }
    }

    /// Counts one request refused for a missing or invalid API key.
    public func recordAuthFailure() {
        state.withLock { $0.authFailures += 1 }
    }

    /// Counts one request refused by the named key's `requests` or `notifications` rate limit.
    public func recordRateLimited(key: String, limit: String) {
        state.withLock { $0.rateLimited[LimitKey(key: key, limit: limit), default: 0] += 1 }
    }

    /// Counts notifications accepted into the outbox.
    public func recordEnqueued(_ count: Int) {
        state.withLock { $0.enqueued += count }
    }

    /// Counts one send result of `app`: `outcome` is accepted, rejected, retry or failed; `reason` the APNs reason.
    public func recordPush(app: String = "default", outcome: String, reason: String) {
        recordPushes(app: app, outcome: outcome, reason: reason, count: 1)
    }

    /// Adds `answered + transportFailures` send latency observations of `seconds` each (one chunk of a batch
    /// send of `app`) and records the app's APNs health in `environment` from the chunk.
    public func recordSends(seconds: Double, app: String = "default", environment: String, answered: Int, transportFailures: Int) {
        let total = answered + transportFailures
        guard total > 0 else { return }
        state.withLock { state in
            state.latency[app, default: Latency()].observe(seconds, times: total)
            state.health[AppEnvironment(app: app, environment: environment)] = transportFailures > 0 && answered == 0 ? .unreachable : .ok
        }
    }

    /// Records that `app`'s connections to `environment` fail (nothing answered): its health is unreachable.
    public func recordUnreachable(app: String, environment: String) {
        state.withLock { $0.health[AppEnvironment(app: app, environment: environment)] = .unreachable }
    }

    /// Counts `count` send results of `app` with the same outcome and reason.
    public func recordPushes(app: String = "default", outcome: String, reason: String, count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.pushes[PushKey(app: app, outcome: outcome, reason: reason), default: 0] += count }
    }

    /// Counts `count` notifications (default one) queued to be sent again, by `cause` (one of `resendCauses`).
    public func recordResend(cause: String, count: Int = 1) {
        guard count > 0 else { return }
        state.withLock { $0.resends[cause, default: 0] += count }
    }

    /// Counts outcomes the outbox refused because their row had been claimed again since (fenced off).
    public func recordStaleCompletions(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.staleCompletions += count }
    }

    /// Counts a push refused by the outbox bound of `app` ("" for the whole outbox's) on `limit`.
    func recordOutboxRefusal(app: String, limit: String) {
        state.withLock { $0.outboxRefusals["app=\"\(Self.escape(app))\",limit=\"\(limit)\"", default: 0] += 1 }
    }

    /// Records how long one write of outcomes took (committed or failed).
    func recordComplete(seconds: Double) {
        state.withLock { $0.completeLatency.observe(seconds, times: 1) }
    }

    /// Counts a failed write of outcomes that will be made again after a back-off (transient), or a row
    /// whose outcome was refused on its own for good (permanent).
    func recordCompleteFailure(permanent: Bool) {
        state.withLock { $0.completeFailures[permanent ? "permanent" : "transient", default: 0] += 1 }
    }

    /// Sets how many rows' outcomes are held after the store refused them for good.
    func setUnwritableOutcomes(_ count: Int) {
        state.withLock { $0.unwritableOutcomes = count }
    }

    /// Counts a batch of outcomes that could not be written and will be written again after a back-off.
    func recordCompleteRetry() {
        state.withLock { $0.completeRetries += 1 }
    }

    /// Counts held claims whose lease was renewed, and held claims found taken over by another instance
    /// when they were to be renewed (their lease had run out: they will be sent twice).
    func recordLeaseRenewals(renewed: Int, lost: Int) {
        guard renewed > 0 || lost > 0 else { return }
        state.withLock {
            $0.leaseRenewals += renewed
            $0.leasesLost += lost
        }
    }

    /// Counts rows the retention job deleted from `table`.
    func recordPurged(table: String, count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.purged[table, default: 0] += count }
    }

    /// Counts one device token marked invalid because APNs answered `reason`.
    public func recordTokenInvalidated(reason: String) {
        state.withLock { $0.invalidated[reason, default: 0] += 1 }
    }

    /// Records when `app`'s APNs client certificate used for `environment` stops being valid.
    public func setCertificateNotAfter(_ date: Date, app: String = "default", environment: String) {
        state.withLock { $0.certificateNotAfter[AppEnvironment(app: app, environment: environment)] = date.timeIntervalSince1970.rounded() }
    }

    /// Sets the number of notifications being sent right now.
    public func setInFlight(_ count: Int) {
        state.withLock { $0.inFlight = count }
    }

    /// The APNs state of `environment` seen so far: the worst of the apps' (`idle` when nothing was sent yet).
    public func apnsHealth(_ environment: String) -> APNSHealth {
        let states = state.withLock { $0.health.filter { $0.key.environment == environment }.values }
        if states.contains(.unreachable) { return .unreachable }
        return states.isEmpty ? .idle : .ok
    }

    /// The APNs state of `app` in `environment` seen so far (`idle` when nothing was sent yet).
    public func apnsHealth(app: String, environment: String) -> APNSHealth {
        state.withLock { $0.health[AppEnvironment(app: app, environment: environment)] ?? .idle }
    }

    /// Every send result counted so far by app, outcome and reason (the console's overview).
    func pushCounts() -> [(app: String, outcome: String, reason: String, count: Int)] {
        state.withLock { $0.pushes.map { (app: $0.key.app, outcome: $0.key.outcome, reason: $0.key.reason, count: $0.value) } }
    }

    /// Send results with `outcome` so far, of every app or of `app` (for tests and logs).
    public func pushCount(outcome: String, app: String? = nil) -> Int {
        state.withLock { $0.pushes.filter { $0.key.outcome == outcome && (app == nil || $0.key.app == app) }.values.reduce(0, +) }
    }
}

/// What the service last saw from one APNs environment.
public enum APNSHealth: String, Sendable {
    /// Nothing sent yet.
    case idle
    /// The last send got an answer from APNs.
    case ok
    /// The last send failed in transport (connection refused, reset, timeout).
    case unreachable
}
