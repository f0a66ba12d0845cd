extension SQLDatabase {
    /// Runs one query on a connection (`onConnection`) and maps every row it returns with `row`: a read of
    /// one statement, which needs no transaction of its own.
    func query<T: Sendable>(
        _ sql: String, _ values: [SQLValue], row: @escaping @Sendable (Session.Row) throws -> T
    ) async throws -> [T] {
        try await onConnection { db in try db.query(sql, values, row: row) }
    }
}
