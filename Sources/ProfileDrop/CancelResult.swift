/// What the service answers to a user's cancel: the store's decision (`cancelled`, `alreadyMatched`, or
/// `nothingPending`).
public typealias CancelResult = DropCancelOutcome
