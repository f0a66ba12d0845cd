import PushStore

/// A database the shared repositories run on (`SQLiteDatabase`, `PostgresDatabase`): it hands a repository
/// a session (`SQLSession`) on one of its connections, with no transaction of its own, in one transaction,
/// or in a read grouped with the reads around it.
protocol SQLDatabase: PushDatabase, Sendable {
    associatedtype Session: SQLSession
    /// How its SQL is written.
    static var dialect: SQLDialect { get }
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
}
