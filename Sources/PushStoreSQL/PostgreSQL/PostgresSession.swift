import PostgresDriver

/// A shared statement's session on a pooled PostgreSQL connection (`SQLSession`).
struct PostgresSession: SQLSession {
    let connection: PostgresConnection

    var dialect: SQLDialect { .postgres }

    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        try connection.run(dialect.render(sql), values.map(\.postgres))
    }

    func query<T>(_ sql: String, _ values: [SQLValue], row: (PostgresRow) throws -> T) throws -> [T] {
        try connection.query(dialect.render(sql), values.map(\.postgres)).map(row)
    }
}

extension PostgresDatabase: SQLDatabase {
    static var dialect: SQLDialect { .postgres }

    var claimOwner: String? { instanceID }

    func onConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
        try await withConnection { try body(PostgresSession(connection: $0)) }
    }

    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
        try await transaction { try body(PostgresSession(connection: $0)) }
    }

    func groupedRead<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
        try await onConnection(body)
    }

    func readingPendingRows<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
        try await transaction { db in
            db.readPendingRowsByIndex()
            return try body(PostgresSession(connection: db))
        }
    }
}
