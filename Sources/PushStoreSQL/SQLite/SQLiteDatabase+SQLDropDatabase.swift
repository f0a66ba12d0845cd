import PushStore
import SQLiteDriver

/// The drop rules' transaction on SQLite: every drop operation runs in a write transaction (SQLite has one
/// writer at a time), which is the lock the drop rules need; reports and cancels that arrive together share
/// one (group commit), each under its own savepoint.
extension SQLiteDatabase: SQLDropDatabase {
    /// See `DropRepository.withDropTransaction`: a write transaction (SQLite has one writer at a time, which
    /// is the lock the rules need, whatever `users`); grouped calls share one with the others that arrive
    /// together (group commit, `SQLiteDatabase.writeGrouped`), each under its own savepoint and in arrival order.
    /// Not isolated to the actor, so that a grouped call joins its group without a job on the actor (see
    /// `writeGrouped`); an ungrouped one runs on the actor in a transaction of its own.
    nonisolated func withDropTransaction<T: Sendable>(
        locking users: [String], grouped: Bool, _ body: @escaping @Sendable (inout any DropTransaction) throws -> T
    ) async throws -> T {
        let run: @Sendable (SQLiteConnection) throws -> T = { db in
            var tx: any DropTransaction = SQLiteDropTransaction(db: db)
            return try body(&tx)
        }
        return grouped ? try await writeGrouped(run) : try await write(run)
    }

    /// true: a report's users and their devices are read in its write transaction
    /// (`SQLiteDropTransaction.usersWithActiveDevices`), which saves the report a read of its own.
    nonisolated var readsUsersInDropTransaction: Bool { true }

    nonisolated func enqueue(_ items: [OutboxItem], _ db: SQLiteSession) throws {
        try SQLiteOutboxRepository.insert(items, db.connection)
    }
}
