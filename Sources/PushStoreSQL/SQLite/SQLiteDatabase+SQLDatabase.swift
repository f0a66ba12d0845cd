import Foundation
import SQLiteDriver

extension SQLiteDatabase: SQLDatabase {
    static var dialect: SQLDialect { .sqlite }

    nonisolated var claimOwner: String? { nil }

    nonisolated func now(_ now: Date) -> SQLValue { .date(now) }

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
