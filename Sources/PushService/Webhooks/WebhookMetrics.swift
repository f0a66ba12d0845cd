import Foundation
import PushStore
import PushSync

/// Webhook delivery counters behind `/metrics`: requests and events by endpoint and outcome, plus the
/// request latency sum and count per endpoint. Endpoint ids are chosen by operators, so the label set is
/// as bounded as the endpoint list. Thread-safe.
public final class WebhookMetrics: Sendable {
    /// What one delivery request came to: `delivered` (2xx), `http_error` (any other status), `timeout`,
    /// `connection_error` (refused, reset, TLS).
    public static let outcomes = ["delivered", "http_error", "timeout", "connection_error"]

    struct Key: Hashable {
        var endpoint: String
        var outcome: String
    }

    struct State {
        var requests: [Key: Int] = [:]
        var events: [Key: Int] = [:]
        var givenUp: [String: Int] = [:]
        var seconds: [String: (sum: Double, count: Int)] = [:]
        var queue: [WebhookDeliveryState: Int] = [:]
    }

    private let state = PThreadLock(State())

    /// Empty counters.
    public init() {}

    /// Counts one request to `endpoint` carrying `events` events, which took `seconds`.
    public func recordRequest(endpoint: String, outcome: String, events: Int, seconds: Double) {
        state.withLock { state in
            state.requests[Key(endpoint: endpoint, outcome: outcome), default: 0] += 1
            state.events[Key(endpoint: endpoint, outcome: outcome), default: 0] += events
            let previous = state.seconds[endpoint] ?? (0, 0)
            state.seconds[endpoint] = (previous.sum + seconds, previous.count + 1)
        }
    }

    /// The requests to `endpoint` that came to `outcome` so far.
    public func requests(endpoint: String, outcome: String) -> Int {
        state.withLock { $0.requests[Key(endpoint: endpoint, outcome: outcome)] ?? 0 }
    }

    /// Sets the queue's rows per state (read from the store when `/metrics` is served).
    func setQueue(_ counts: [WebhookDeliveryState: Int]) {
        state.withLock { $0.queue = counts }
    }

    /// The Prometheus text of the webhook series.
    func prometheusText() -> String {
        let snapshot = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP push_webhook_requests_total Webhook delivery requests by endpoint and outcome.")
        lines.append("# TYPE push_webhook_requests_total counter")
        for (key, count) in snapshot.requests.sorted(by: { ($0.key.endpoint, $0.key.outcome) < ($1.key.endpoint, $1.key.outcome) }) {
            lines.append("push_webhook_requests_total{endpoint=\"\(Self.escape(key.endpoint))\",outcome=\"\(key.outcome)\"} \(count)")
        }
        lines.append("# HELP push_webhook_events_total Webhook events carried by delivery requests, by endpoint and outcome.")
        lines.append("# TYPE push_webhook_events_total counter")
        for (key, count) in snapshot.events.sorted(by: { ($0.key.endpoint, $0.key.outcome) < ($1.key.endpoint, $1.key.outcome) }) {
            lines.append("push_webhook_events_total{endpoint=\"\(Self.escape(key.endpoint))\",outcome=\"\(key.outcome)\"} \(count)")
        }
        lines.append("# HELP push_webhook_request_seconds Time per webhook delivery request.")
        lines.append("# TYPE push_webhook_request_seconds summary")
        for (endpoint, value) in snapshot.seconds.sorted(by: { $0.key < $1.key }) {
            lines.append("push_webhook_request_seconds_sum{endpoint=\"\(Self.escape(endpoint))\"} \(value.sum)")
            lines.append("push_webhook_request_seconds_count{endpoint=\"\(Self.escape(endpoint))\"} \(value.count)")
        }
        lines.append("# HELP push_webhook_queue_events Webhook events in the store by state (delivered and failed read at most once a minute).")
        lines.append("# TYPE push_webhook_queue_events gauge")
        for state in WebhookDeliveryState.allCases {
            lines.append("push_webhook_queue_events{state=\"\(state.rawValue)\"} \(snapshot.queue[state] ?? 0)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
