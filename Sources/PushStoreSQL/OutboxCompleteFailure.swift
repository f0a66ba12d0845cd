import PostgresDriver
import PushStore
import SQLiteDriver

/// Whether a write of outcomes (`OutboxRepository.complete`) that failed may commit if made again unchanged.
///
/// The worker keeps outcomes until they commit. A transient failure is retried as it is, after a back-off;
/// a permanent one fails the same way every time, so the worker splits the batch to let the other rows
/// commit and keeps only the rows refused on their own.
public enum OutboxCompleteFailure: String, Sendable, Equatable {
    /// The database was away, busy, out of space, interrupted or out of time: the same write may commit
    /// later (connection lost or refused, server shutting down 57P01/57P03, serialization failure 40001,
    /// deadlock 40P01, disk full 53100/`SQLITE_FULL`, `SQLITE_BUSY`/`SQLITE_LOCKED`, I/O errors, timeouts),
    /// and any failure not known to be permanent.
    case transient
    /// The database refused the statement for what it says or what it meets: a constraint (SQLSTATE class
    /// 23, `SQLITE_CONSTRAINT`), a data exception (class 22), an unknown or malformed name (class 42,
    /// `SQLITE_ERROR`), a feature not supported (0A), a cardinality violation (21), a statement used wrongly
    /// (`SQLITE_MISUSE`, `SQLITE_MISMATCH`, `SQLITE_RANGE`, `SQLITE_TOOBIG`), or a store error about a value.
    case permanent

    /// The kind of `error`, as a repository threw it.
    public init(_ error: any Error) {
        switch error {
        case let error as PushStoreError: self = Self.kind(of: error)
        case let error as PostgresError: self = Self.kind(of: error)
        case let error as SQLiteError: self = Self.permanentSQLite.contains(error.code & 0xff) ? .permanent : .transient
        default: self = .transient
        }
    }

    /// SQLSTATE classes whose errors come back on every run of the same statement.
    private static let permanentClasses: Set<Substring> = ["0A", "21", "22", "23", "42"]

    /// SQLite's primary result codes (sqlite3.h) for the same: `SQLITE_ERROR` 1 (an SQL error: a syntax error,
    /// a missing table or column), `SQLITE_TOOBIG` 18, `SQLITE_CONSTRAINT` 19, `SQLITE_MISMATCH` 20,
    /// `SQLITE_MISUSE` 21, `SQLITE_RANGE` 25.
    private static let permanentSQLite: Set<Int32> = [1, 18, 19, 20, 21, 25]

    private static func kind(of error: PushStoreError) -> Self {
        switch error {
        case .unavailable, .storageFull: return .transient
        case .invalidUserID, .invalidToken, .invalidField, .profileTooLarge, .duplicateID, .notFound, .notRecipient,
            .alreadyAnswered, .invalidTransition:
            return .permanent
        }
    }

    private static func kind(of error: PostgresError) -> Self {
        if error.isUnavailable || error.isStorageFull || error.isRetryable { return .transient }
        switch error.kind {
        case .badURL, .schemaTooNew: return .permanent
        case .statement:
            guard let state = error.sqlState, state.count == 5 else { return .transient }
            return permanentClasses.contains(state.prefix(2)) ? .permanent : .transient
        default: return .transient
        }
    }
}
