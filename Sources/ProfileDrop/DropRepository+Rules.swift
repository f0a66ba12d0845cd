public import Foundation
public import PushStore

/// Each rule decides at `now`, or at the store's shared clock where its instances share one
/// (`DropTransaction.now(given:)`): the PostgreSQL database's, so that drop windows paired by different
/// instances are measured on one clock.
extension DropRepository {
    /// Decides one report at `now` (`DropRules.report`) in one transaction holding both users: a new or
    /// repeated pending drop, busy, or a match stored together with both mate requests and their outbox rows.
    /// Also returns the drops that expired on the way. Reports that arrive together may share a transaction.
    public func report(_ request: DropReportRequest, now: Date) async throws -> (DropReportOutcome, expired: [DropRecord]) {
        try await withDropTransaction(locking: [request.reporterID, request.peerID], grouped: true) { tx in
            try DropRules.report(request, given: now, &tx)
        }
    }

    /// Cancels `userID`'s pending drop at `now`, or says it matched within `window`, or that nothing is
    /// pending (`DropRules.cancel`); grouped with the reports around it, as `report` is.
    public func cancel(userID: String, now: Date, window: Duration) async throws -> (DropCancelOutcome, expired: [DropRecord]) {
        try await withDropTransaction(locking: [userID], grouped: true) { tx in
            try DropRules.cancel(userID: userID, now: try tx.now(given: now), window: window, &tx)
        }
    }

    /// `userID`'s pending drop, else their match within `window`, else nil, expiring a due drop first
    /// (`DropRules.current`).
    public func current(userID: String, now: Date, window: Duration) async throws -> (DropRecord?, expired: [DropRecord]) {
        try await withDropTransaction(locking: [userID], grouped: false) { tx in
            try DropRules.current(userID: userID, now: try tx.now(given: now), window: window, &tx)
        }
    }

    /// Expires every pending drop whose window ended before `now` and returns them (`DropRules.expireDue`);
    /// locks no users.
    public func expireDue(now: Date) async throws -> [DropRecord] {
        try await withDropTransaction(locking: [], grouped: false) { tx in try DropRules.expireDue(now: try tx.now(given: now), &tx) }
    }
}
