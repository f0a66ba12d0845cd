import Foundation
public import PushStore

extension MatchService {
    /// Expires every pending drop whose window has passed (state `expired`, both users freed, nothing
    /// pushed). Call it from a timer; reports, cancels and status also expire the drops they touch. Returns
    /// the drops expired. Safe to run on every instance: each drop expires once.
    @discardableResult
    public func expireDue() async throws -> [DropRecord] {
        let expired = try await drops.expireDue(now: clock())
        metrics.expiries += expired.count
        return expired
    }
}
