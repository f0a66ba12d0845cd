import PushSync

/// Live Activity counters behind `/metrics`: updates that asked for priority 10 and went at 10 within the
/// activity's budget, and those sent at 5 instead because the budget was spent. Thread-safe.
public final class LiveActivityMetrics: Sendable {
    private struct State {
        var granted = 0
        var downgraded = 0
    }

    private let state = PThreadLock(State())

    /// Zero counters.
    public init() {}

    /// Counts one update that asked for priority 10: sent at 10 (`downgraded` false) or at 5.
    public func recordPriority10Request(downgraded: Bool) {
        state.withLock { state in
            if downgraded { state.downgraded += 1 } else { state.granted += 1 }
        }
    }

    /// Updates sent at priority 5 although they asked for 10, so far.
    public var downgrades: Int {
        state.withLock { $0.downgraded }
    }

    /// The counters in the Prometheus text format.
    func prometheusText() -> String {
        let snapshot = state.withLock { $0 }
        return [
            "# HELP push_live_activity_priority10_updates_total Live Activity updates sent at priority 10 within their activity's budget.",
            "# TYPE push_live_activity_priority10_updates_total counter",
            "push_live_activity_priority10_updates_total \(snapshot.granted)",
            "# HELP push_live_activity_priority_downgrades_total Live Activity updates that asked for priority 10 past their activity's budget and went at 5.",
            "# TYPE push_live_activity_priority_downgrades_total counter",
            "push_live_activity_priority_downgrades_total \(snapshot.downgraded)",
        ].joined(separator: "\n") + "\n"
    }
}
