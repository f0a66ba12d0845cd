import APNSCore
import Foundation
import PushSync

/// Counters, gauges and the send-latency histogram behind `GET /metrics`. Thread-safe.
public final class ServiceMetrics: Sendable {
    /// Upper bounds (seconds) of the send latency histogram buckets.
    public static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct PushKey: Hashable {
        var outcome: String
        var reason: String
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
        var latencyCounts = [Int](repeating: 0, count: ServiceMetrics.latencyBuckets.count)
        var latencyCount = 0
        var latencySum = 0.0
        var inFlight = 0
        var health: [String: APNSHealth] = [:]
        var authFailures = 0
        var rateLimited: [LimitKey: Int] = [:]
        /// Known invalidating reasons start at zero, so the series exist before the first invalidation.
        var invalidated: [String: Int] = Dictionary(uniqueKeysWithValues: ServiceMetrics.invalidationReasons.map { ($0, 0) })
        var certificateNotAfter: [String: Double] = [:]
        /// Every cause starts at zero, so the series exist before the first re-send.
        var staleCompletions = 0
        var purged: [String: Int] = Dictionary(uniqueKeysWithValues: RetentionTable.allCases.map { ($0.rawValue, 0) })
        var resends: [String: Int] = Dictionary(uniqueKeysWithValues: ServiceMetrics.resendCauses.map { ($0, 0) })
    }

    /// Why a notification goes back to the queue to be sent again: APNs answered 429/500/503
    /// (`retryable_rejection`), the transport failed before it was sent (`not_sent`), or while it was on the
    /// wire, so APNs may have delivered it (`outcome_unknown`: the only cause that can duplicate).
    public static let resendCauses = ["not_sent", "outcome_unknown", "retryable_rejection"]

    /// The APNs reasons that invalidate a device token (each a `push_tokens_invalidated_total` series from the start).
    public static let invalidationReasons = APNSRejectionReason.allKnown.filter(\.invalidatesToken).map(\.rawValue)

    private let state = PThreadLock(State())
    /// Webhook deliveries by endpoint and outcome.
    public let webhooks = WebhookMetrics()

    /// Empty metrics.
    public init() {}

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

    /// Counts one send result: `outcome` is accepted, rejected, retry or failed; `reason` the APNs reason.
    public func recordPush(outcome: String, reason: String) {
        state.withLock { $0.pushes[PushKey(outcome: outcome, reason: reason), default: 0] += 1 }
    }

    /// Adds one send latency observation and records the environment's APNs health.
    public func recordSend(seconds: Double, environment: String, transportFailure: Bool) {
        state.withLock { state in
            if let bucket = Self.latencyBuckets.firstIndex(where: { seconds <= $0 }) {
                state.latencyCounts[bucket] += 1
            }
            state.latencyCount += 1
            state.latencySum += seconds
            state.health[environment] = transportFailure ? .unreachable : .ok
        }
    }

    /// Adds `answered + transportFailures` send latency observations of `seconds` each (one chunk of a batch
    /// send) and records the environment's APNs health from the chunk.
    public func recordSends(seconds: Double, environment: String, answered: Int, transportFailures: Int) {
        let total = answered + transportFailures
        guard total > 0 else { return }
        state.withLock { state in
            if let bucket = Self.latencyBuckets.firstIndex(where: { seconds <= $0 }) {
                state.latencyCounts[bucket] += total
            }
            state.latencyCount += total
            state.latencySum += seconds * Double(total)
            state.health[environment] = transportFailures > 0 && answered == 0 ? .unreachable : .ok
        }
    }

    /// Counts `count` send results with the same outcome and reason.
    public func recordPushes(outcome: String, reason: String, count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.pushes[PushKey(outcome: outcome, reason: reason), default: 0] += count }
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

    /// Counts rows the retention job deleted from `table`.
    func recordPurged(table: String, count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.purged[table, default: 0] += count }
    }

    /// Counts one device token marked invalid because APNs answered `reason`.
    public func recordTokenInvalidated(reason: String) {
        state.withLock { $0.invalidated[reason, default: 0] += 1 }
    }

    /// Records when the APNs client certificate used for `environment` stops being valid.
    public func setCertificateNotAfter(_ date: Date, environment: String) {
        state.withLock { $0.certificateNotAfter[environment] = date.timeIntervalSince1970.rounded() }
    }

    /// Sets the number of notifications being sent right now.
    public func setInFlight(_ count: Int) {
        state.withLock { $0.inFlight = count }
    }

    /// The APNs state of each environment seen so far (`idle` when nothing was sent yet).
    public func apnsHealth(_ environment: String) -> APNSHealth {
        state.withLock { $0.health[environment] ?? .idle }
    }

    /// Accepted-notification count so far (for tests and logs).
    public func pushCount(outcome: String) -> Int {
        state.withLock { $0.pushes.filter { $0.key.outcome == outcome }.values.reduce(0, +) }
    }

    /// The Prometheus text exposition of everything, plus `extra` (already formatted) at the end.
    /// `oldestPendingAgeSeconds` is the age of the oldest notification still to be sent (0 when none is).
    public func prometheusText(outboxCounts: [String: Int], oldestPendingAgeSeconds: Double = 0, extra: String) -> String {
        let snapshot = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP push_notifications_total Send results by outcome and APNs reason.")
        lines.append("# TYPE push_notifications_total counter")
        for (key, count) in snapshot.pushes.sorted(by: { ($0.key.outcome, $0.key.reason) < ($1.key.outcome, $1.key.reason) }) {
            lines.append("push_notifications_total{outcome=\"\(key.outcome)\",reason=\"\(Self.escape(key.reason))\"} \(count)")
        }
        lines.append("# HELP push_notifications_enqueued_total Notifications accepted into the outbox by the API.")
        lines.append("# TYPE push_notifications_enqueued_total counter")
        lines.append("push_notifications_enqueued_total \(snapshot.enqueued)")
        lines.append("# HELP push_outbox_depth Notifications queued or in flight.")
        lines.append("# TYPE push_outbox_depth gauge")
        lines.append("push_outbox_depth \((outboxCounts["queued"] ?? 0) + (outboxCounts["in_flight"] ?? 0))")
        lines.append("# HELP push_outbox_rows Outbox rows by state.")
        lines.append("# TYPE push_outbox_rows gauge")
        for (state, count) in outboxCounts.sorted(by: { $0.key < $1.key }) {
            lines.append("push_outbox_rows{state=\"\(state)\"} \(count)")
        }
        lines.append("# HELP push_outbox_oldest_age_seconds Age of the oldest notification queued or in flight; 0 when none is.")
        lines.append("# TYPE push_outbox_oldest_age_seconds gauge")
        lines.append("push_outbox_oldest_age_seconds \(max(0, oldestPendingAgeSeconds))")
        lines.append("# HELP outbox_stale_completions_total Outcomes not recorded because another claim had taken the row over.")
        lines.append("# TYPE outbox_stale_completions_total counter")
        lines.append("outbox_stale_completions_total \(snapshot.staleCompletions)")
        lines.append("# HELP push_resends_total Notifications queued to be sent again, by what the last attempt left known.")
        lines.append("# TYPE push_resends_total counter")
        for (cause, count) in snapshot.resends.sorted(by: { $0.key < $1.key }) {
            lines.append("push_resends_total{cause=\"\(cause)\"} \(count)")
        }
        lines.append("# HELP push_store_purged_rows_total Finished rows the retention job deleted, by table.")
        lines.append("# TYPE push_store_purged_rows_total counter")
        for (table, count) in snapshot.purged.sorted(by: { $0.key < $1.key }) {
            lines.append("push_store_purged_rows_total{table=\"\(table)\"} \(count)")
        }
        lines.append("# HELP push_tokens_invalidated_total Device tokens marked invalid, by the APNs reason.")
        lines.append("# TYPE push_tokens_invalidated_total counter")
        for (reason, count) in snapshot.invalidated.sorted(by: { $0.key < $1.key }) {
            lines.append("push_tokens_invalidated_total{reason=\"\(Self.escape(reason))\"} \(count)")
        }
        lines.append("# HELP push_apns_certificate_not_after_timestamp_seconds When the APNs client certificate expires (Unix time).")
        lines.append("# TYPE push_apns_certificate_not_after_timestamp_seconds gauge")
        for (environment, notAfter) in snapshot.certificateNotAfter.sorted(by: { $0.key < $1.key }) {
            lines.append("push_apns_certificate_not_after_timestamp_seconds{environment=\"\(environment)\"} \(Int64(notAfter))")
        }
        lines.append("# HELP push_apns_in_flight Notifications handed to APNs and not answered yet.")
        lines.append("# TYPE push_apns_in_flight gauge")
        lines.append("push_apns_in_flight \(snapshot.inFlight)")
        lines.append("# HELP push_apns_up 1 when the last send to the environment reached APNs.")
        lines.append("# TYPE push_apns_up gauge")
        for (environment, health) in snapshot.health.sorted(by: { $0.key < $1.key }) {
            lines.append("push_apns_up{environment=\"\(environment)\"} \(health == .unreachable ? 0 : 1)")
        }
        lines.append("# HELP push_send_latency_seconds Time from handing a notification to the APNs client to its outcome.")
        lines.append("# TYPE push_send_latency_seconds histogram")
        var cumulative = 0
        for (bound, count) in zip(Self.latencyBuckets, snapshot.latencyCounts) {
            cumulative += count
            lines.append("push_send_latency_seconds_bucket{le=\"\(bound)\"} \(cumulative)")
        }
        lines.append("push_send_latency_seconds_bucket{le=\"+Inf\"} \(snapshot.latencyCount)")
        lines.append("push_send_latency_seconds_sum \(snapshot.latencySum)")
        lines.append("push_send_latency_seconds_count \(snapshot.latencyCount)")
        lines.append("# HELP http_requests_total HTTP requests by route and status.")
        lines.append("# TYPE http_requests_total counter")
        for (key, count) in snapshot.requests.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            lines.append("http_requests_total{route=\"\(Self.escape(key.route))\",status=\"\(key.status)\"} \(count)")
        }
        lines.append("# HELP http_auth_failures_total Requests refused for a missing or invalid API key.")
        lines.append("# TYPE http_auth_failures_total counter")
        lines.append("http_auth_failures_total \(snapshot.authFailures)")
        lines.append("# HELP http_rate_limited_total Requests refused by a key's rate limit, by key name and limit.")
        lines.append("# TYPE http_rate_limited_total counter")
        for (key, count) in snapshot.rateLimited.sorted(by: { ($0.key.key, $0.key.limit) < ($1.key.key, $1.key.limit) }) {
            lines.append("http_rate_limited_total{key=\"\(Self.escape(key.key))\",limit=\"\(key.limit)\"} \(count)")
        }
        return lines.joined(separator: "\n") + "\n" + extra
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
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
