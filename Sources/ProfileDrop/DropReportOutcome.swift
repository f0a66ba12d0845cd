public import PushStore

/// What the store decided for one report.
public enum DropReportOutcome: Sendable, Equatable {
    /// The reporter's pending drop toward the peer (new, or a repeat).
    case pending(DropRecord)
    /// The reporter or the peer is engaged in another pending drop.
    case busy
    /// This report matched the pair: the drop and its two mate requests (the initiator's first), stored
    /// together with their outbox rows.
    case matched(DropRecord, [MateRequestRecord])
    /// The pair had matched within the window already (a repeat): that drop and its mate requests.
    case alreadyMatched(DropRecord, [MateRequestRecord])
}
