internal import CLibPQ
import Foundation

/// Owns one `PGresult*` of a successful statement (cleared in `deinit`); its rows come in binary format.
///
/// Read it on the thread that ran the statement, before handing the connection back; the repositories
/// turn rows into records at once and keep none of these.
package final class PostgresRows {
    private let result: OpaquePointer
    /// The number of rows.
    package let count: Int

    init(_ result: OpaquePointer) {
        self.result = result
        count = Int(PQntuples(result))
    }

    deinit { PQclear(result) }

    /// Rows changed by an INSERT, UPDATE or DELETE (`PQcmdTuples`), 0 for other statements.
    package var affectedRows: Int {
        guard let text = PQcmdTuples(result) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    /// The row at `index`.
    package subscript(index: Int) -> PostgresRow { PostgresRow(rows: self, index: Int32(index)) }

    /// Maps every row with `body`.
    package func map<T>(_ body: (PostgresRow) throws -> T) rethrows -> [T] {
        var mapped: [T] = []
        mapped.reserveCapacity(count)
        for index in 0..<count { mapped.append(try body(self[index])) }
        return mapped
    }

    /// The offset of the column named `name`, or -1.
    package func columnIndex(named name: String) -> Int32 { PQfnumber(result, name) }

    /// The name of column `index`.
    package func columnName(at index: Int32) -> String { PQfname(result, index).map { String(cString: $0) } ?? "" }

    /// The number of columns.
    package var columnCount: Int32 { PQnfields(result) }

    fileprivate func isNull(_ row: Int32, _ column: Int32) -> Bool { PQgetisnull(result, row, column) != 0 }

    fileprivate func raw(_ row: Int32, _ column: Int32) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(result, row, column))
        guard let value = PQgetvalue(result, row, column), length > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: value, count: length)
    }
}

/// One row of a `PostgresRows`, read by column offset (or by a column-list case).
package struct PostgresRow {
    fileprivate let rows: PostgresRows
    fileprivate let index: Int32

    /// True when the column holds NULL.
    package func isNull(at column: Int32) -> Bool { rows.isNull(index, column) }

    /// An integer column (`smallint`, `integer`, `bigint` or `boolean` in binary: big-endian bytes).
    package func int64(at column: Int32) -> Int64 {
        let bytes = rows.raw(index, column)
        var value: Int64 = 0
        for byte in bytes { value = value << 8 | Int64(byte) }
        // Sign-extend the shorter integer types.
        let bits = bytes.count * 8
        if bits > 0 && bits < 64 && bytes[0] & 0x80 != 0 { value -= Int64(1) << bits }
        return value
    }

    package func optionalInt64(at column: Int32) -> Int64? { isNull(at: column) ? nil : int64(at: column) }

    package func int(at column: Int32) -> Int { Int(int64(at: column)) }

    package func optionalInt(at column: Int32) -> Int? { optionalInt64(at: column).map(Int.init) }

    /// A boolean column.
    package func bool(at column: Int32) -> Bool { int64(at: column) != 0 }

    /// A text column (its UTF-8 bytes, as the binary format carries them).
    package func string(at column: Int32) -> String { String(decoding: rows.raw(index, column), as: UTF8.self) }

    package func optionalString(at column: Int32) -> String? { isNull(at: column) ? nil : string(at: column) }

    /// A `bytea` column.
    package func bytes(at column: Int32) -> [UInt8] { Array(rows.raw(index, column)) }

    /// The text column named `name` (for short ad-hoc queries; lists read by column offset).
    package func string(named name: String) -> String { string(at: rows.columnIndex(named: name)) }

    /// The integer column named `name`.
    package func int64(named name: String) -> Int64 { int64(at: rows.columnIndex(named: name)) }
}
