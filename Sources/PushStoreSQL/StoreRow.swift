import APNSCore
import Foundation
import PostgresDriver
import PushStore
import SQLiteDriver

/// One result row of either SQL backend, read by column offset: what the shared column lists and record
/// mappings below need, so each table's columns and row-to-record rule exist once for both backends.
protocol StoreRow: SendableMetatype {
    func int64(at column: Int32) -> Int64
    func optionalInt64(at column: Int32) -> Int64?
    func string(at column: Int32) -> String
    func optionalString(at column: Int32) -> String?
    func bytes(at column: Int32) -> [UInt8]
    /// The text at `column`, `previous` itself (no new copy) when it holds the same: for columns that repeat
    /// from row to row, such as the push id along one fan-out.
    func string(at column: Int32, reusing previous: String) -> String
    /// The bytes at `column`, `previous` itself (no new copy) when they are the same.
    func bytes(at column: Int32, reusing previous: [UInt8]) -> [UInt8]
}

extension SQLiteStatement: StoreRow {
    func bytes(at column: Int32) -> [UInt8] { blob(at: column) }
    func bytes(at column: Int32, reusing previous: [UInt8]) -> [UInt8] { blob(at: column, reusing: previous) }
}

extension PostgresRow: StoreRow {}

extension StoreRow {
    /// A new copy each time: a row type that cannot compare in place reads the column again.
    func string(at column: Int32, reusing previous: String) -> String { string(at: column) }
    func bytes(at column: Int32, reusing previous: [UInt8]) -> [UInt8] { bytes(at: column) }

    func int64(_ column: some StoreColumn) -> Int64 { int64(at: column.rawValue) }
    func optionalInt64(_ column: some StoreColumn) -> Int64? { optionalInt64(at: column.rawValue) }
    func int(_ column: some StoreColumn) -> Int { Int(int64(at: column.rawValue)) }
    func optionalInt(_ column: some StoreColumn) -> Int? { optionalInt64(at: column.rawValue).map(Int.init) }
    func string(_ column: some StoreColumn) -> String { string(at: column.rawValue) }
    func optionalString(_ column: some StoreColumn) -> String? { optionalString(at: column.rawValue) }
    func bytes(_ column: some StoreColumn) -> [UInt8] { bytes(at: column.rawValue) }
    /// The time stored in `column` (milliseconds since 1970).
    func date(_ column: some StoreColumn) -> Date { Date(storeMillis: int64(at: column.rawValue)) }
    /// The time stored in `column`, or nil for NULL.
    func optionalDate(_ column: some StoreColumn) -> Date? {
        optionalInt64(at: column.rawValue).map(Date.init(storeMillis:))
    }
}
