package import Foundation

/// One phone's report of its peer, as the store decides it (the drop condition was checked before).
public struct DropReportRequest: Sendable {
    /// The reporting user.
    public var reporterID: String
    /// The user they reported.
    public var peerID: String
    /// The id a new pending drop gets, if this report creates one.
    public var newDropID: String
    /// How long a pending drop waits for the peer, and how long a match answers repeats.
    public var window: Duration
    /// The outbox rows that push a new match's two mate requests. The store calls it inside the transaction
    /// that stores the match, so it must not do I/O: read what it needs (devices, cards) beforehand.
    public var pushes: @Sendable (_ drop: DropRecord, _ requests: [MateRequestRecord]) -> [OutboxItem]

    /// A report of `peerID` by `reporterID`.
    public init(
        reporterID: String, peerID: String, newDropID: String, window: Duration,
        pushes: @escaping @Sendable (_ drop: DropRecord, _ requests: [MateRequestRecord]) -> [OutboxItem]
    ) {
        self.reporterID = reporterID
        self.peerID = peerID
        self.newDropID = newDropID
        self.window = window
        self.pushes = pushes
    }
}

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

/// What the store decided for one cancel.
public enum DropCancelOutcome: Sendable, Equatable {
    /// The user's pending drop is now cancelled; both users are free.
    case cancelled(DropRecord)
    /// The user's drop matched within the window; its pushes stand.
    case alreadyMatched(DropRecord)
    /// The user has no pending or recently matched drop.
    case nothingPending
}

/// The ids of a matched drop's two mate requests; the initiator's sorts first.
public enum MateRequestID {
    /// The request the drop's initiator receives (carrying the peer's card).
    public static func toInitiator(dropID: String) -> String { "\(dropID).initiator" }
    /// The request the drop's peer receives (carrying the initiator's card).
    public static func toPeer(dropID: String) -> String { "\(dropID).peer" }
}

/// The reads and writes the profile-drop rules (`DropRules`) make inside one transaction of one store. The
/// store runs the rules with both users locked against every other drop operation on them, so what the
/// rules read stays true until they commit; each store implements these steps on its own tables.
package protocol DropTransaction {
    /// The pending drops engaging any of `userIDs` (as initiator or peer), by the user they engage (users
    /// without one are left out).
    mutating func pendingDrops(engaging userIDs: [String]) throws -> [String: DropRecord]
    /// The latest drop between the two users that matched at or after `since`.
    mutating func latestMatch(between first: String, and second: String, since: Date) throws -> DropRecord?
    /// The latest drop of `userID` that matched at or after `since`.
    mutating func latestMatch(of userID: String, since: Date) throws -> DropRecord?
    /// The mate requests of a drop, oldest first (then by id).
    mutating func requests(forDrop dropID: String) throws -> [MateRequestRecord]
    /// Stores a new pending drop and engages both of its users; `PushStoreError.duplicateID` if the id exists.
    mutating func insertPending(_ drop: DropRecord) throws
    /// Writes the new state of a drop that was pending (matched, cancelled or expired) and frees its users.
    /// Throws if the stored drop is no longer pending (another writer got there first); the store then runs
    /// the rules again.
    mutating func close(_ drop: DropRecord) throws
    /// Stores mate requests of a drop.
    mutating func insert(_ requests: [MateRequestRecord]) throws
    /// Queues outbox rows.
    mutating func enqueue(_ items: [OutboxItem]) throws
    /// Every pending drop whose window ended before `now`.
    mutating func pendingDrops(expiringBefore now: Date) throws -> [DropRecord]
}

/// The profile-drop rules, written once over `DropTransaction` and run by every store inside one
/// transaction: at most one pending drop per user; the peer's report of the initiator matches, writing the
/// match, both mate requests and their outbox rows together; repeats are idempotent within the window; a
/// cancel and a match of the same drop are decided once. Drops whose window ended expire when touched.
package enum DropRules {
    /// Decides `request` at `now`. Returns the outcome and the drops that expired on the way.
    package static func report(
        _ request: DropReportRequest, now: Date, _ tx: inout some DropTransaction
    ) throws -> (DropReportOutcome, expired: [DropRecord]) {
        let (reporter, peer) = (request.reporterID, request.peerID)
        let (pending, expired) = try settle([reporter, peer], now: now, &tx)
        let since = now.addingTimeInterval(-(request.window / .seconds(1)))
        if let match = try tx.latestMatch(between: reporter, and: peer, since: since) {
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
    package static func cancel(
        userID: String, now: Date, window: Duration, _ tx: inout some DropTransaction
    ) throws -> (DropCancelOutcome, expired: [DropRecord]) {
        let (pending, expired) = try settle([userID], now: now, &tx)
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
    package static func current(
        userID: String, now: Date, window: Duration, _ tx: inout some DropTransaction
    ) throws -> (DropRecord?, expired: [DropRecord]) {
        let (pending, expired) = try settle([userID], now: now, &tx)
        if let drop = pending[userID] { return (drop, expired) }
        return (try tx.latestMatch(of: userID, since: now.addingTimeInterval(-(window / .seconds(1)))), expired)
    }

    /// Expires every pending drop whose window ended before `now`; returns them.
    package static func expireDue(now: Date, _ tx: inout some DropTransaction) throws -> [DropRecord] {
        var expired: [DropRecord] = []
        for var drop in try tx.pendingDrops(expiringBefore: now) {
            try DropTransition.apply(.expired, at: now, to: &drop)
            try tx.close(drop)
            expired.append(drop)
        }
        return expired
    }

    /// Expires the pending drops of `users` whose window ended before `now`. Returns the drops still
    /// pending by the user they engage, and the expired ones: the rules decide on these instead of reading
    /// each user's drop again, as nothing else writes in their transaction. All of them are read at once;
    /// a drop engaging two of `users` expires once and then engages neither.
    private static func settle(
        _ users: [String], now: Date, _ tx: inout some DropTransaction
    ) throws -> (pending: [String: DropRecord], expired: [DropRecord]) {
        let found = try tx.pendingDrops(engaging: users)
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
        try tx.close(drop)
        try tx.insert(requests)
        try tx.enqueue(items)
        return .matched(drop, requests)
    }
}
