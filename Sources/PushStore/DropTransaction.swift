public import Foundation

/// The reads and writes the profile-drop rules (ProfileDrop's `DropRules`) make inside one transaction of one
/// store (`DropRepository.withDropTransaction`). The store runs the rules with their users locked against
/// every other drop operation on them, so what the rules read stays true until they commit; each store
/// implements these steps on its own tables.
public protocol DropTransaction {
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
    /// The time the rules decide at: the clock the store's instances share (the database's, read once for
    /// the transaction), or `given` (the caller's) for a store used by one process or told to take it.
    func now(given: Date) -> Date
}

extension DropTransaction {
    /// `given`: a store used by one process at a time has no other clock to agree with.
    public func now(given: Date) -> Date { given }
}
