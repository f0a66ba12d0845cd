extension SQLDatabase {
    /// Runs one query on a connection (`onConnection`) and maps every row it returns with `row`: a read of
    /// one statement, which needs no transaction of its own.
    func query<T: Sendable>(
        _ sql: String, _ values: [SQLValue], row: @escaping @Sendable (Session.Row) throws -> T
    ) async throws -> [T] {
        try await onConnection { db in try db.query(sql, values, row: row) }
    }

    /// Runs one statement that returns no rows on a connection (`onConnection`), and returns how many rows
    /// it changed: a write of one statement, which needs no transaction of its own.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) async throws -> Int {
        try await onConnection { db in try db.run(sql, values) }
    }
}
