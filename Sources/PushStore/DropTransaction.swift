public import Foundation

/// The reads and writes the profile-drop rules (ProfileDrop's `DropRules`) make inside one transaction of one
/// store (`DropRepository.withDropTransaction`). The store runs the rules with their users held against
/// every other drop operation on them, so what the rules read stays true until they commit (or, where a
/// write finds it changed, the store runs the rules again); each store implements these steps on its own
/// tables.
public protocol DropTransaction {
    /// What a report between `reporter` and `peer` is decided on, read at once (one statement where the
    /// store can): the time it is decided at (`now(given:)`), the pending drops engaging either of them, and
    /// the latest drop between them that matched within `window` before that time.
    mutating func reportState(reporter: String, peer: String, window: Duration, given: Date) throws -> DropReportState
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
    /// The last write of its transaction: a store may commit the transaction with it.
    mutating func insertPending(_ drop: DropRecord) throws
    /// Writes the new state of a drop that was pending (matched, cancelled or expired) and frees its users.
    /// Throws if the stored drop is no longer pending (another writer got there first); the store then runs
    /// the rules again.
    mutating func close(_ drop: DropRecord) throws
    /// Writes the match of a drop that was pending (as `close`) and stores its mate requests (as `insert`).
    mutating func match(_ drop: DropRecord, requests: [MateRequestRecord]) throws
    /// Stores mate requests of a drop.
    mutating func insert(_ requests: [MateRequestRecord]) throws
    /// Queues outbox rows.
    mutating func enqueue(_ items: [OutboxItem]) throws
    /// Every pending drop whose window ended before `now`.
    mutating func pendingDrops(expiringBefore now: Date) throws -> [DropRecord]
    /// The time the rules decide at: the clock the store's instances share (the database's, read once for
    /// the transaction, after its users are held), or `given` (the caller's) for a store used by one
    /// process or told to take it.
    mutating func now(given: Date) throws -> Date
    /// The users among `ids` with their active devices (each user's in registration order, then by token
    /// and topic), read inside this transaction, or nil for a store that reads them on its own before it
    /// (`UserRepository.users(ids:withDevicesIn:includeInvalidated:)`), as the default does: where the
    /// store says so (`DropRepository.readsUsersInDropTransaction`), a profile-drop report is then one
    /// transaction and one trip to the store.
    mutating func usersWithActiveDevices(_ ids: [String]) throws -> (users: [String: UserRecord], devices: [String: [DeviceRecord]])?
}

/// What a report is decided on (`DropTransaction.reportState`).
public struct DropReportState: Sendable, Equatable {
    /// The time the report is decided at.
    public var now: Date
    /// The pending drops engaging the reporter or the peer, by the user they engage.
    public var pending: [String: DropRecord]
    /// The latest drop between the two that matched within the window before `now`.
    public var latestMatch: DropRecord?

    /// A state from its parts.
    public init(now: Date, pending: [String: DropRecord], latestMatch: DropRecord?) {
        self.now = now
        self.pending = pending
        self.latestMatch = latestMatch
    }
}

extension DropTransaction {
    /// `given`: a store used by one process at a time has no other clock to agree with.
    public func now(given: Date) -> Date { given }

    /// nil: the users are read before the transaction.
    public func usersWithActiveDevices(_ ids: [String]) -> (users: [String: UserRecord], devices: [String: [DeviceRecord]])? { nil }

    /// The time, then both users' pending drops and the pair's latest match, each read on its own.
    public mutating func reportState(reporter: String, peer: String, window: Duration, given: Date) throws -> DropReportState {
        let now = try now(given: given)
        let pending = try pendingDrops(engaging: [reporter, peer])
        let since = now.addingTimeInterval(-(window / .seconds(1)))
        return DropReportState(now: now, pending: pending, latestMatch: try latestMatch(between: reporter, and: peer, since: since))
    }

    /// `close`, then `insert`.
    public mutating func match(_ drop: DropRecord, requests: [MateRequestRecord]) throws {
        try close(drop)
        try insert(requests)
    }
}
