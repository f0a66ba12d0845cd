public import PushStore

/// What the service answers to one phone's report of its peer.
public enum DropReport: Sendable, Equatable {
    /// The first side reported: the drop waits for the peer (both users are now engaged). Repeats return it again.
    case pending(DropRecord)
    /// Both sides reported: the drop matched and one mate request per side was stored and pushed.
    /// Repeats within the window return the same drop and requests.
    case matched(DropRecord, mateRequests: [MateRequestRecord])
    /// The reporter or the peer is engaged in another drop; who with is not disclosed.
    case busy
    /// The measurement is valid but outside the drop condition; nothing changed.
    case conditionNotMet(DropConditionFailure)

    /// The metrics label of this result.
    public var outcome: ReportOutcome {
        switch self {
        case .pending: return .pending
        case .matched: return .matched
        case .busy: return .busy
        case .conditionNotMet: return .conditionNotMet
        }
    }
}

/// The result classes reports are counted under.
public enum ReportOutcome: String, Sendable, CaseIterable, Hashable {
    /// A pending drop was made or repeated.
    case pending
    /// A drop matched or a match was repeated.
    case matched
    /// Someone involved was engaged elsewhere.
    case busy
    /// Outside the drop condition.
    case conditionNotMet = "condition_not_met"
    /// Rejected input: self-report, bad measurement, unknown user.
    case invalid
    /// A storage or notifier failure.
    case failed
}
