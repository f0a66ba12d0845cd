internal import CSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An error reported by SQLite: the C function that failed, its result code and `sqlite3_errmsg`.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The SQLite C function that returned the failing result code.
    public var function: String
    /// The (extended) SQLite result code.
    public var code: Int32
    /// The message SQLite gave for the failure (`sqlite3_errmsg`).
    public var message: String
    /// The operating system's error number behind an I/O failure (`sqlite3_system_errno`), 0 when none.
    public var systemErrno: Int32

    /// Creates an error from its parts.
    public init(function: String, code: Int32, message: String, systemErrno: Int32 = 0) {
        self.function = function
        self.code = code
        self.message = message
        self.systemErrno = systemErrno
    }

    /// True when the primary result code is `SQLITE_CONSTRAINT` (unique, check or foreign-key violation).
    public var isConstraintViolation: Bool { code & 0xff == SQLITE_CONSTRAINT }

    /// True when the write was refused for want of space: `SQLITE_FULL` (SQLite's answer to `ENOSPC` on a
    /// write), or an I/O error (growing the WAL index, truncating, syncing) whose system error is `ENOSPC`
    /// or `EDQUOT`.
    public var isStorageFull: Bool {
        code & 0xff == SQLITE_FULL || (code & 0xff == SQLITE_IOERR && (systemErrno == ENOSPC || systemErrno == EDQUOT))
    }

    /// A one-line description naming the function and the code.
    public var description: String { "\(function) failed (\(code)): \(message)" }
}

/// The one checking helper: turns a SQLite result code into a thrown `SQLiteError` unless it is `ok`.
func sqliteCheck(_ code: Int32, _ function: String, _ db: OpaquePointer?, ok: Int32 = SQLITE_OK) throws(SQLiteError) {
    if code != ok { throw sqliteError(code, function, db) }
}

/// Builds the error for `code`, taking the message from `sqlite3_errmsg` (or `sqlite3_errstr` without a handle).
func sqliteError(_ code: Int32, _ function: String, _ db: OpaquePointer?) -> SQLiteError {
    let message: String
    if let db, let text = sqlite3_errmsg(db) {
        message = String(cString: text)
    } else if let text = sqlite3_errstr(code) {
        message = String(cString: text)
    } else {
        message = "unknown error"
    }
    return SQLiteError(function: function, code: code, message: message, systemErrno: db.map { sqlite3_system_errno($0) } ?? 0)
}
