import Foundation
import PushStore

extension MatchService {
    /// Cancels the user's pending drop, freeing both users.
    ///
    /// Linearizable with matching: once this returns `.cancelled`, no push for that drop is ever queued; if the
    /// drop matched first (or its match was already decided and is finished now), it returns `.alreadyMatched`.
    public func cancel(userID: String) async throws -> CancelResult {
        await enterGate()
        defer { leaveGate() }
        let now = clock()
        try await settleIfDue(userID: userID, now: now)
        if let dropID = engaged[userID], let drop = pending[dropID] {
            if decided.contains(dropID) {
                return .alreadyMatched(try await completeMatch(drop, now: now).drop)
            }
            let cancelled: DropRecord
            do {
                cancelled = try await drops.update(id: dropID, to: .cancelled, at: now)
            } catch PushStoreError.invalidTransition {
                release(drop)  // the store moved on without us; trust it
                throw MatchStateError(dropID)
            }
            release(drop)
            metrics.cancels += 1
            return .cancelled(cancelled)
        }
        if let pair = lastMatch[userID], let done = recentMatch(pair, now: now) { return .alreadyMatched(done.drop) }
        return .nothingPending
    }
}
