internal import CSQLite
import Foundation

/// Owns one prepared `sqlite3_stmt*`; finalized in `deinit`. Used only by its connection's owner.
package final class SQLiteStatement {
    private let handle: OpaquePointer
    /// The SQL text this statement was prepared from (its cache key).
    package let sql: String

    init(db: OpaquePointer, sql: String) throws(SQLiteError) {
        var stmt: OpaquePointer?
        let code = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        try sqliteCheck(code, "sqlite3_prepare_v3", db)
        guard let stmt else {
            throw SQLiteError(function: "sqlite3_prepare_v3", code: SQLITE_MISUSE, message: "empty statement: \(sql)")
        }
        self.handle = stmt
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    private var db: OpaquePointer? { sqlite3_db_handle(handle) }

    /// Resets the statement and clears its bindings so it can be reused.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Binding (indexes start at 1, as in SQLite)

    package func bind(_ value: Int64?, at index: Int32) throws(SQLiteError) {
        guard let value else { return try bindNull(at: index) }
        try sqliteCheck(sqlite3_bind_int64(handle, index, value), "sqlite3_bind_int64", db)
    }

    package func bind(_ value: Int?, at index: Int32) throws(SQLiteError) {
        try bind(value.map(Int64.init), at: index)
    }

    package func bind(_ value: Double?, at index: Int32) throws(SQLiteError) {
        guard let value else { return try bindNull(at: index) }
        try sqliteCheck(sqlite3_bind_double(handle, index, value), "sqlite3_bind_double", db)
    }

    package func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        guard var value else { return try bindNull(at: index) }
        let code = value.withUTF8 { bytes -> Int32 in
            // A nil base address would bind NULL; an empty string must stay an empty string.
            let base = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(("" as StaticString).utf8Start)
            return sqlite3_bind_text(
                handle, index, base.assumingMemoryBound(to: CChar.self),
                Int32(bytes.count), push_sqlite_transient())
        }
        try sqliteCheck(code, "sqlite3_bind_text", db)
    }

    package func bind(_ value: [UInt8]?, at index: Int32) throws(SQLiteError) {
        guard let value else { return try bindNull(at: index) }
        let code = value.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return sqlite3_bind_blob(handle, index, base, Int32(bytes.count), push_sqlite_transient())
        }
        try sqliteCheck(code, "sqlite3_bind_blob", db)
    }

    package func bindNull(at index: Int32) throws(SQLiteError) {
        try sqliteCheck(sqlite3_bind_null(handle, index), "sqlite3_bind_null", db)
    }

    package func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        switch value {
        case .integer(let v): try bind(v, at: index)
        case .real(let v): try bind(v, at: index)
        case .text(let v): try bind(v, at: index)
        case .blob(let v): try bind(v, at: index)
        case .null: try bindNull(at: index)
        }
    }

    /// Binds `values` to parameters 1, 2, ….
    package func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    // MARK: Stepping

    /// Steps once: true when a row is available, false when done.
    package func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        // Capture the message first, then reset so the statement releases its locks.
        let error = sqliteError(code, "sqlite3_step", db)
        sqlite3_reset(handle)
        throw error
    }

    // MARK: Reading (indexes start at 0, as in SQLite)

    package func isNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    package func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    package func optionalInt64(at index: Int32) -> Int64? { isNull(at: index) ? nil : int64(at: index) }

    package func int(at index: Int32) -> Int { Int(int64(at: index)) }

    package func optionalInt(at index: Int32) -> Int? { optionalInt64(at: index).map(Int.init) }

    package func double(at index: Int32) -> Double { sqlite3_column_double(handle, index) }

    package func string(at index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    package func optionalString(at index: Int32) -> String? { isNull(at: index) ? nil : string(at: index) }

    /// The text at `index`, returning `previous` itself (no new allocation) when it holds the same bytes:
    /// for columns that repeat from row to row, such as the push id of a fan-out.
    package func string(at index: Int32, reusing previous: String) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        let bytes = UnsafeBufferPointer(start: text, count: count)
        var previous = previous
        let same = previous.withUTF8 { old in
            old.count == count && (count == 0 || memcmp(old.baseAddress!, text, count) == 0)
        }
        return same ? previous : String(decoding: bytes, as: UTF8.self)
    }

    package func blob(at index: Int32) -> [UInt8] {
        guard let raw = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: raw, count: count))
    }

    /// The blob at `index`, returning `previous` itself (no new allocation) when it holds the same bytes.
    package func blob(at index: Int32, reusing previous: [UInt8]) -> [UInt8] {
        guard let raw = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        let same = previous.withUnsafeBytes { old in
            old.count == count && (count == 0 || memcmp(old.baseAddress!, raw, count) == 0)
        }
        return same ? previous : Array(UnsafeRawBufferPointer(start: raw, count: count))
    }

    package func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(double(at: index))
        case SQLITE_TEXT: return .text(string(at: index))
        case SQLITE_BLOB: return .blob(blob(at: index))
        default: return .null
        }
    }

    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of result column `index` (for a table column, its name without the table alias).
    package func columnName(at index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }
}
