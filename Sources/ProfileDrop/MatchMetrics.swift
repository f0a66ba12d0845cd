/// Counters the match service exports (e.g. on `/metrics`); a snapshot, not a live view.
public struct MatchMetrics: Sendable, Equatable {
    /// Reports by result; every `ReportOutcome` is present.
    public var reports: [ReportOutcome: Int]
    /// Drops that matched.
    public var matches: Int
    /// Drops cancelled by a user.
    public var cancels: Int
    /// Drops that expired one-sided.
    public var expiries: Int
    /// Mate requests accepted.
    public var accepted: Int
    /// Mate requests declined.
    public var declined: Int

    /// All counters at zero.
    public init() {
        reports = Dictionary(uniqueKeysWithValues: ReportOutcome.allCases.map { ($0, 0) })
        matches = 0
        cancels = 0
        expiries = 0
        accepted = 0
        declined = 0
    }

    /// Every report counted, whatever its result.
    public var reportsTotal: Int { reports.values.reduce(0, +) }

    /// The counters in Prometheus text form, names prefixed with `prefix`.
    public func prometheusText(prefix: String = "profile_drop") -> String {
        var lines = ["# TYPE \(prefix)_reports_total counter"]
        for outcome in ReportOutcome.allCases {
            lines.append("\(prefix)_reports_total{result=\"\(outcome.rawValue)\"} \(reports[outcome] ?? 0)")
        }
        for (name, value) in [("matches", matches), ("cancels", cancels), ("expiries", expiries)] {
            lines.append("# TYPE \(prefix)_\(name)_total counter")
            lines.append("\(prefix)_\(name)_total \(value)")
        }
        lines.append("# TYPE \(prefix)_answers_total counter")
        lines.append("\(prefix)_answers_total{answer=\"accepted\"} \(accepted)")
        lines.append("\(prefix)_answers_total{answer=\"declined\"} \(declined)")
        return lines.joined(separator: "\n") + "\n"
    }
}
