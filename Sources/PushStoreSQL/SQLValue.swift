import Foundation
import PushStore

/// A value bound to a shared statement (`SQLSession`), turned into the driver's own value when it runs.
enum SQLValue: Sendable, Equatable {
    case integer(Int64)
    case text(String)
    /// A blob (SQLite) or bytea (PostgreSQL).
    case bytes([UInt8])
    /// A list of texts, for `= ANY (?n::text[])`: PostgreSQL only (SQLite statements list the values,
    /// `SQLSession.inList`).
    case textArray([String])
    case null

    /// `.text`, or `.null` for nil.
    static func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    /// `.integer`, or `.null` for nil.
    static func integer(_ value: Int?) -> SQLValue { value.map { .integer(Int64($0)) } ?? .null }
    /// A time as stored: milliseconds since 1970.
    static func date(_ value: Date) -> SQLValue { .integer(value.storeMillis) }

    /// The value as a driver binds it.
    func bound<Value: SQLDriverValue>() -> Value {
        switch self {
        case .integer(let value): .integer(value)
        case .text(let value): .text(value)
        case .bytes(let value): .bytes(value)
        case .null: .null
        case .textArray(let values): .textArray(values)
        }
    }
}
