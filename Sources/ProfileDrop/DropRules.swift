import Foundation
import PushStore

/// The profile-drop rules, written once over `DropTransaction` and run by every store inside one
/// transaction: at most one pending drop per user; the peer's report of the initiator matches, writing the
/// match, both mate requests and their outbox rows together; repeats are idempotent within the window; a
/// cancel and a match of the same drop are decided once. Drops whose window ended expire when touched.
enum DropRules {
    /// Decides `request` at the store's time (`DropTransaction.now(given:)`, `given` by the caller): from one
    /// read of both users' pending drops and of the pair's latest match (`DropTransaction.reportState`), then
    /// at most one write of its own (a new pending drop, or the match with its requests and their outbox
    /// rows) after the expiry of the drops found due. Returns the outcome and the drops that expired on the way.
    static func report(
        _ request: DropReportRequest, given: Date, _ tx: inout some DropTransaction
    ) throws -> (DropReportOutcome, expired: [DropRecord]) {
        let (reporter, peer) = (request.reporterID, request.peerID)
        var request = request
        if let pushesFromUsers = request.pushesFromUsers {
            guard let found = try tx.usersWithActiveDevices([reporter, peer]) else {
                throw PushStoreError.invalidField(field: "pushesFromUsers", reason: "this store reads no users in its transaction")
            }
            request.pushes = try pushesFromUsers(found.users, found.devices)
        }
        let state = try tx.reportState(reporter: reporter, peer: peer, window: request.window, given: given)
        let now = state.now
        let (pending, expired) = try settle([reporter, peer], found: state.pending, now: now, &tx)
        if let match = state.latestMatch {
            return (.alreadyMatched(match, try tx.requests(forDrop: match.id)), expired)
        }
        if let drop = pending[reporter] {
            guard Set([drop.initiatorID, drop.peerID]) == Set([reporter, peer]) else { return (.busy, expired) }
            guard drop.initiatorID != reporter else { return (.pending(drop), expired) }
            return (try match(drop, request, now: now, &tx), expired)
        }
        guard pending[peer] == nil else { return (.busy, expired) }
        let drop = DropRecord(
            id: request.newDropID, initiatorID: reporter, peerID: peer, createdAt: now,
            expiresAt: now.addingTimeInterval(request.window / .seconds(1)))
        try drop.validate()
        try tx.insertPending(drop)
        return (.pending(drop), expired)
    }

    /// Cancels `userID`'s pending drop at `now`, unless it matched within `window`.
    static func cancel(
        userID: String, now: Date, window: Duration, _ tx: inout some DropTransaction
    ) throws -> (DropCancelOutcome, expired: [DropRecord]) {
        let (pending, expired) = try settle([userID], found: try tx.pendingDrops(engaging: [userID]), now: now, &tx)
        if var drop = pending[userID] {
            try DropTransition.apply(.cancelled, at: now, to: &drop)
            try tx.close(drop)
            return (.cancelled(drop), expired)
        }
        if let match = try tx.latestMatch(of: userID, since: now.addingTimeInterval(-(window / .seconds(1)))) {
            return (.alreadyMatched(match), expired)
        }
        return (.nothingPending, expired)
    }

    /// `userID`'s current drop at `now`: the pending one, else their match within `window`, else nil.
    static func current(
        userID: String, now: Date, window: Duration, _ tx: inout some DropTransaction
    ) throws -> (DropRecord?, expired: [DropRecord]) {
        let (pending, expired) = try settle([userID], found: try tx.pendingDrops(engaging: [userID]), now: now, &tx)
        if let drop = pending[userID] { return (drop, expired) }
        return (try tx.latestMatch(of: userID, since: now.addingTimeInterval(-(window / .seconds(1)))), expired)
    }

    /// Expires every pending drop whose window ended before `now`; returns them.
    static func expireDue(now: Date, _ tx: inout some DropTransaction) throws -> [DropRecord] {
        var expired: [DropRecord] = []
        for var drop in try tx.pendingDrops(expiringBefore: now) {
            try DropTransition.apply(.expired, at: now, to: &drop)
            try tx.close(drop)
            expired.append(drop)
        }
        return expired
    }

    /// Expires the pending drops of `users` (`found`, read at once, by the user they engage) whose window
    /// ended before `now`. Returns the drops still pending by the user they engage, and the expired ones: the
    /// rules decide on these instead of reading each user's drop again, as nothing else writes in their
    /// transaction. A drop engaging two of `users` expires once and then engages neither.
    private static func settle(
        _ users: [String], found: [String: DropRecord], now: Date, _ tx: inout some DropTransaction
    ) throws -> (pending: [String: DropRecord], expired: [DropRecord]) {
        var pending: [String: DropRecord] = [:]
        var expired: [DropRecord] = []
        for user in users {
            guard var drop = found[user] else { continue }
            guard now > drop.expiresAt else {
                pending[user] = drop
                continue
            }
            guard !expired.contains(where: { $0.id == drop.id }) else { continue }
            try DropTransition.apply(.expired, at: now, to: &drop)
            try tx.close(drop)
            expired.append(drop)
        }
        return (pending, expired)
    }

    /// Matches the pending `drop` (the reporter is its peer): the drop, both mate requests and their pushes.
    private static func match(
        _ pending: DropRecord, _ request: DropReportRequest, now: Date, _ tx: inout some DropTransaction
    ) throws -> DropReportOutcome {
        var drop = pending
        try DropTransition.apply(.matched, at: now, to: &drop)
        let requests = [
            MateRequestRecord(
                id: MateRequestID.toInitiator(dropID: drop.id), dropID: drop.id, senderID: drop.peerID,
                recipientID: drop.initiatorID, createdAt: now),
            MateRequestRecord(
                id: MateRequestID.toPeer(dropID: drop.id), dropID: drop.id, senderID: drop.initiatorID,
                recipientID: drop.peerID, createdAt: now),
        ]
        let items = request.pushes(drop, requests)
        for item in items { try item.validate() }  // before any write: a bad row changes nothing
        try tx.match(drop, requests: requests)
        try tx.enqueue(items)
        return .matched(drop, requests)
    }
}
