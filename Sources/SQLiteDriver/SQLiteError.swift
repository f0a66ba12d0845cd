internal import CSQLite

/// An error reported by SQLite: the C function that failed, its result code and `sqlite3_errmsg`.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The SQLite C function that returned the failing result code.
    public var function: String
    /// The (extended) SQLite result code.
    public var code: Int32
    /// The message SQLite gave for the failure (`sqlite3_errmsg`).
    public var message: String

    /// Creates an error from its parts.
    public init(function: String, code: Int32, message: String) {
        self.function = function
        self.code = code
        self.message = message
    }

    /// True when the primary result code is `SQLITE_CONSTRAINT` (unique, check or foreign-key violation).
    public var isConstraintViolation: Bool { code & 0xff == SQLITE_CONSTRAINT }

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
    return SQLiteError(function: function, code: code, message: message)
}
