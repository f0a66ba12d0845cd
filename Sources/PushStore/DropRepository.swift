public import Foundation

/// Profile drops between two users. The drop rules (ProfileDrop's `DropRules`) run inside a transaction the
/// store provides (`withDropTransaction`) with their users locked, so the rules hold however many service
/// instances share the store and however their requests interleave.
public protocol DropRepository: Sendable {
    /// Runs `body`, the profile-drop rules (ProfileDrop's `DropRules`), in one transaction of this store with
    /// the users in `users` held against every other drop operation on them until it commits: all of its
    /// writes or, if it throws, none (in the SQL stores). With `grouped`, the transaction may be shared with other grouped calls
    /// that arrive together (group commit), each undone alone if it throws. `body` may run more than once
    /// (when another writer closed a drop it read, or a group is replayed): it must only read and write
    /// through the transaction it is handed and decide only from what it reads there and what it captured.
    func withDropTransaction<T: Sendable>(
        locking users: [String], grouped: Bool, _ body: @escaping @Sendable (inout any DropTransaction) throws -> T
    ) async throws -> T
    /// Every pending drop, oldest first.
    func pending() async throws -> [DropRecord]
    /// The drop with `id`.
    func drop(id: String) async throws -> DropRecord?
    /// Deletes up to `limit` drops that ended (matched, cancelled or expired) before `date` and have no mate
    /// request left; returns how many.
    func purgeEnded(olderThan date: Date, limit: Int) async throws -> Int
    /// Whether this store's drop transactions read users with their devices
    /// (`DropTransaction.usersWithActiveDevices` is not nil), from the tables the store's own user and
    /// device repositories keep.
    var readsUsersInDropTransaction: Bool { get }
}

extension DropRepository {
    /// false: the users are read before the transaction.
    public var readsUsersInDropTransaction: Bool { false }
}
