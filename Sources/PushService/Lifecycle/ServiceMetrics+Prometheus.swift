import APNSCore
import Foundation
import PushSync

/// The Prometheus text exposition of the counters (`GET /metrics`).
extension ServiceMetrics {
    /// The Prometheus text exposition of everything, plus `extra` (already formatted) at the end.
    /// `oldestPendingAgeSeconds` is the age of the oldest notification still to be sent (0 when none is).
    public func prometheusText(outboxCounts: [String: Int], oldestPendingAgeSeconds: Double = 0, extra: String) -> String {
        let snapshot = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP push_notifications_total Send results by app, outcome and APNs reason.")
        lines.append("# TYPE push_notifications_total counter")
        for (key, count) in snapshot.pushes.sorted(by: { ($0.key.app, $0.key.outcome, $0.key.reason) < ($1.key.app, $1.key.outcome, $1.key.reason) })
        {
            // Rows that expired before an app took them carry no app.
            let app = key.app.isEmpty ? "" : "app=\"\(Self.escape(key.app))\","
            lines.append("push_notifications_total{\(app)outcome=\"\(key.outcome)\",reason=\"\(Self.escape(key.reason))\"} \(count)")
        }
        lines.append("# HELP push_notifications_enqueued_total Notifications accepted into the outbox by the API.")
        lines.append("# TYPE push_notifications_enqueued_total counter")
        lines.append("push_notifications_enqueued_total \(snapshot.enqueued)")
        lines.append("# HELP push_outbox_depth Notifications queued or in flight.")
        lines.append("# TYPE push_outbox_depth gauge")
        lines.append("push_outbox_depth \((outboxCounts["queued"] ?? 0) + (outboxCounts["in_flight"] ?? 0))")
        lines.append("# HELP push_outbox_rows Outbox rows by state (final states read at most once a minute).")
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
        lines.append(
            "# HELP outbox_complete_retries_total Writes of send outcomes that failed and were tried again (outcomes are kept until written).")
        lines.append("# TYPE outbox_complete_retries_total counter")
        lines.append("outbox_complete_retries_total \(snapshot.completeRetries)")
        lines.append(
            "# HELP push_outbox_complete_failures_total Failed writes of send outcomes by kind: transient (per write, retried after a back-off), permanent (per row refused on its own; the others commit)."
        )
        lines.append("# TYPE push_outbox_complete_failures_total counter")
        for (kind, count) in snapshot.completeFailures.sorted(by: { $0.key < $1.key }) {
            lines.append("push_outbox_complete_failures_total{kind=\"\(kind)\"} \(count)")
        }
        lines.append(
            "# HELP push_outbox_outcomes_unwritable Rows whose outcome the store refuses for good: held (not sent again) and written again every 30 s."
        )
        lines.append("# TYPE push_outbox_outcomes_unwritable gauge")
        lines.append("push_outbox_outcomes_unwritable \(snapshot.unwritableOutcomes)")
        lines.append("# HELP push_outbox_complete_seconds Time each write of send outcomes to the outbox took (one batch, committed or failed).")
        lines.append("# TYPE push_outbox_complete_seconds histogram")
        var completeCumulative = 0
        for (bound, count) in zip(Self.latencyBuckets, snapshot.completeLatency.counts) {
            completeCumulative += count
            lines.append("push_outbox_complete_seconds_bucket{le=\"\(bound)\"} \(completeCumulative)")
        }
        lines.append("push_outbox_complete_seconds_bucket{le=\"+Inf\"} \(snapshot.completeLatency.count)")
        lines.append("push_outbox_complete_seconds_sum \(snapshot.completeLatency.sum)")
        lines.append("push_outbox_complete_seconds_count \(snapshot.completeLatency.count)")
        lines.append(
            "# HELP push_outbox_refused_total Pushes refused because the outbox was at its bound, by app (empty: the whole outbox) and limit (rows, bytes)."
        )
        lines.append("# TYPE push_outbox_refused_total counter")
        if snapshot.outboxRefusals.isEmpty { lines.append("push_outbox_refused_total{app=\"\",limit=\"rows\"} 0") }
        for (labels, count) in snapshot.outboxRefusals.sorted(by: { $0.key < $1.key }) {
            lines.append("push_outbox_refused_total{\(labels)} \(count)")
        }
        lines.append("# HELP outbox_lease_renewals_total Outbox claims still being sent whose lease this instance renewed.")
        lines.append("# TYPE outbox_lease_renewals_total counter")
        lines.append("outbox_lease_renewals_total \(snapshot.leaseRenewals)")
        lines.append("# HELP outbox_leases_lost_total Outbox claims still being sent that another instance took over when their lease ran out.")
        lines.append("# TYPE outbox_leases_lost_total counter")
        lines.append("outbox_leases_lost_total \(snapshot.leasesLost)")
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
        for (key, notAfter) in snapshot.certificateNotAfter.sorted(by: { Self.order($0.key, $1.key) }) {
            lines.append("push_apns_certificate_not_after_timestamp_seconds{\(Self.labels(key))} \(Int64(notAfter))")
        }
        lines.append("# HELP push_apns_in_flight Notifications handed to APNs and not answered yet.")
        lines.append("# TYPE push_apns_in_flight gauge")
        lines.append("push_apns_in_flight \(snapshot.inFlight)")
        lines.append("# HELP push_apns_up 1 when the app's last send to the environment reached APNs.")
        lines.append("# TYPE push_apns_up gauge")
        for (key, health) in snapshot.health.sorted(by: { Self.order($0.key, $1.key) }) {
            lines.append("push_apns_up{\(Self.labels(key))} \(health == .unreachable ? 0 : 1)")
        }
        lines.append("# HELP push_send_latency_seconds Time from handing a notification to the APNs client to its outcome, by app.")
        lines.append("# TYPE push_send_latency_seconds histogram")
        for (app, latency) in snapshot.latency.sorted(by: { $0.key < $1.key }) {
            let label = "app=\"\(Self.escape(app))\""
            var cumulative = 0
            for (bound, count) in zip(Self.latencyBuckets, latency.counts) {
                cumulative += count
                lines.append("push_send_latency_seconds_bucket{\(label),le=\"\(bound)\"} \(cumulative)")
            }
            lines.append("push_send_latency_seconds_bucket{\(label),le=\"+Inf\"} \(latency.count)")
            lines.append("push_send_latency_seconds_sum{\(label)} \(latency.sum)")
            lines.append("push_send_latency_seconds_count{\(label)} \(latency.count)")
        }
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

    static func order(_ left: AppEnvironment, _ right: AppEnvironment) -> Bool {
        (left.app, left.environment) < (right.app, right.environment)
    }

    static func labels(_ key: AppEnvironment) -> String {
        "app=\"\(escape(key.app))\",environment=\"\(key.environment)\""
    }

    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
