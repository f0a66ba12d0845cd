import SQLiteDriver

/// A shared statement's session on the SQLite connection (`SQLSession`).
struct SQLiteSession: SQLSession {
    let connection: SQLiteConnection

    var dialect: SQLDialect { .sqlite }

    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        try connection.run(dialect.render(sql), values.map(\.sqlite))
    }

    func query<T>(_ sql: String, _ values: [SQLValue], row: (SQLiteStatement) throws -> T) throws -> [T] {
        try connection.query(dialect.render(sql), values.map(\.sqlite), row: row)
    }
}

extension SQLiteDatabase: SQLDatabase {
    static var dialect: SQLDialect { .sqlite }

    nonisolated var claimOwner: String? { nil }

    func onConnection<T: Sendable>(_ body: @escaping @Sendable (SQLiteSession) throws -> T) throws -> T {
        try perform { try body(SQLiteSession(connection: $0)) }
    }

    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteSession) throws -> T) throws -> T {
        try write { try body(SQLiteSession(connection: $0)) }
    }

    func groupedRead<T: Sendable>(_ body: @escaping @Sendable (SQLiteSession) throws -> T) async throws -> T {
        try await readGrouped { try body(SQLiteSession(connection: $0)) }
    }

    func readingPendingRows<T: Sendable>(_ body: @escaping @Sendable (SQLiteSession) throws -> T) throws -> T {
        try onConnection(body)
    }
}
