import PushStore

/// What the service answers to a user's cancel.
public enum CancelResult: Sendable, Equatable {
    /// The user's pending drop is now cancelled; no push for it will ever be sent; both users are free.
    case cancelled(DropRecord)
    /// The user's drop matched already (within the last window); its pushes stand.
    case alreadyMatched(DropRecord)
    /// The user has no pending or recently matched drop.
    case nothingPending
}
