import Foundation
import PushStore

/// A database the shared repositories run on (`SQLiteDatabase`, `PostgresDatabase`): it hands a repository
/// a session (`SQLSession`) on one of its connections, with no transaction of its own, in one transaction,
/// or in a read grouped with the reads around it.
protocol SQLDatabase: PushDatabase, Sendable {
    associatedtype Session: SQLSession
    /// How its SQL is written.
    static var dialect: SQLDialect { get }
    /// The name this instance writes in the rows it claims (`owner`) where several instances share the
    /// database (PostgreSQL's `instanceID`); nil on SQLite, used by one process at a time.
    var claimOwner: String? { get }
    /// The value of a `SQLDialect.now(_:)` parameter for `now`, the caller's time: itself, or NULL where
    /// the instances' times are the database's (`PostgresClock.database`).
    func now(_ now: Date) -> SQLValue
    /// Runs `body` on a connection with no transaction of its own: for reads, and for writes of one
    /// statement (atomic by itself). SQLite: on the database actor (`perform`); PostgreSQL: on a pooled
    /// connection (`withConnection`).
    func onConnection<T: Sendable>(_ body: @escaping @Sendable (Session) throws -> T) async throws -> T
    /// Runs `body` in one transaction: all of its writes or, if it throws, none. SQLite: `BEGIN IMMEDIATE`
    /// (`write`); PostgreSQL: read committed (`transaction`), run again on a serialization failure.
    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (Session) throws -> T) async throws -> T
    /// Runs `body`, a read that may share one read transaction with the reads arriving together (SQLite:
    /// `readGrouped`); PostgreSQL runs it on a pooled connection.
    func groupedRead<T: Sendable>(_ body: @escaping @Sendable (Session) throws -> T) async throws -> T
    /// Runs `body`, a read of the pending rows of a queue through their partial index: on PostgreSQL in a
    /// transaction of its own told to read through the index (`PostgresConnection.readPendingRowsByIndex`);
    /// on SQLite as `onConnection` (the statement names its index, `SQLDialect.indexedBy`).
    func readingPendingRows<T: Sendable>(_ body: @escaping @Sendable (Session) throws -> T) async throws -> T
}
