import Foundation
import PushStore

extension MatchService {
    /// Cancels the user's pending drop, freeing both users.
    ///
    /// Decided once against matching (in the store's transaction): once this returns `.cancelled`, no push
    /// for that drop is ever queued; if the drop matched first, it returns `.alreadyMatched`.
    public func cancel(userID: String) async throws -> CancelResult {
        let (outcome, expired) = try await drops.cancel(userID: userID, now: clock(), window: condition.window)
        metrics.expiries += expired.count
        if case .cancelled = outcome { metrics.cancels += 1 }
        return outcome
    }
}
