public import PushStore

/// What the store decided for one cancel.
public enum DropCancelOutcome: Sendable, Equatable {
    /// The user's pending drop is now cancelled; both users are free.
    case cancelled(DropRecord)
    /// The user's drop matched within the window; its pushes stand.
    case alreadyMatched(DropRecord)
    /// The user has no pending or recently matched drop.
    case nothingPending
}
