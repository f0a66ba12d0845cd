import Foundation
import PostgresDriver

extension PostgresDatabase: SQLDatabase {
    static var dialect: SQLDialect { .postgres }

    var claimOwner: String? { instanceID }

    func now(_ now: Date) -> SQLValue { clock == .caller ? .date(now) : .null }

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
