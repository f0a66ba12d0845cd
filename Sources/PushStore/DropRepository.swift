public import Foundation

/// Profile drops between two users, with the drop rules (`DropRules`) enforced by the store itself: every
/// operation is one transaction with its users locked, so the rules hold however many service instances
/// share the store and however their requests interleave.
public protocol DropRepository: Sendable {
    /// Decides one report at `now`: a new or repeated pending drop, busy, or a match stored together with
    /// both mate requests and their outbox rows. Also returns the drops that expired on the way.
    func report(_ request: DropReportRequest, now: Date) async throws -> (DropReportOutcome, expired: [DropRecord])
    /// Cancels `userID`'s pending drop at `now`, or says it matched within `window`, or that nothing is pending.
    func cancel(userID: String, now: Date, window: Duration) async throws -> (DropCancelOutcome, expired: [DropRecord])
    /// `userID`'s pending drop, else their match within `window`, else nil (expiring a due drop first).
    func current(userID: String, now: Date, window: Duration) async throws -> (DropRecord?, expired: [DropRecord])
    /// Expires every pending drop whose window ended before `now`; returns them.
    func expireDue(now: Date) async throws -> [DropRecord]
    /// Every pending drop, oldest first.
    func pending() async throws -> [DropRecord]
    /// The drop with `id`.
    func drop(id: String) async throws -> DropRecord?
    /// Deletes up to `limit` drops that ended (matched, cancelled or expired) before `date` and have no mate
    /// request left; returns how many.
    func purgeEnded(olderThan date: Date, limit: Int) async throws -> Int
}
