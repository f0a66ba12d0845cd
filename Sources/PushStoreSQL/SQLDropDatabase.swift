import PushStore

/// What the profile-drop repositories (`SQLDropRepository`, `SQLMateRequestRepository`) need that each
/// database does its own way: the drop rules' transaction, and outbox rows written inside a transaction.
protocol SQLDropDatabase: SQLDatabase {
    /// Runs `body` in the transaction the drop rules need: see `DropRepository.withDropTransaction`.
    func withDropTransaction<T: Sendable>(
        locking users: [String], grouped: Bool, _ body: @escaping @Sendable (inout any DropTransaction) throws -> T
    ) async throws -> T

    /// Stores `items` (validated) in the outbox inside the transaction `db` is in.
    func enqueue(_ items: [OutboxItem], _ db: Session) throws

    /// See `DropRepository.readsUsersInDropTransaction`.
    var readsUsersInDropTransaction: Bool { get }
}

extension SQLDropDatabase {
    /// false: the users are read before the transaction.
    var readsUsersInDropTransaction: Bool { false }
}
