/// A parameter of a PostgreSQL statement. Values always travel as parameters, never inside the SQL text.
enum PostgresValue: Sendable, Equatable {
    /// An integer (sent as text, so the server reads it into whatever integer type the parameter has).
    case integer(Int64)
    /// Text.
    case text(String)
    /// Bytes, for a `bytea` parameter (sent in binary format).
    case bytes([UInt8])
    /// A boolean.
    case bool(Bool)
    /// SQL NULL.
    case null

    /// `.integer`, or `.null` for nil.
    static func integer(_ value: Int?) -> PostgresValue { value.map { .integer(Int64($0)) } ?? .null }
    /// `.integer`, or `.null` for nil.
    static func integer(_ value: Int64?) -> PostgresValue { value.map { .integer($0) } ?? .null }
    /// `.text`, or `.null` for nil.
    static func text(_ value: String?) -> PostgresValue { value.map { .text($0) } ?? .null }

    /// A `text[]` parameter (in the array's text form, every element quoted, nil as NULL): for
    /// `= ANY ($n::text[])` and `unnest`.
    static func textArray(_ values: [String?]) -> PostgresValue {
        var literal = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { literal += "," }
            guard let value else {
                literal += "NULL"
                continue
            }
            literal += "\""
            for character in value.unicodeScalars {
                if character == "\"" || character == "\\" { literal += "\\" }
                literal.unicodeScalars.append(character)
            }
            literal += "\""
        }
        return .text(literal + "}")
    }

    /// A `bigint[]` parameter (nil as NULL).
    static func integerArray(_ values: [Int64?]) -> PostgresValue {
        .text("{" + values.map { $0.map(String.init) ?? "NULL" }.joined(separator: ",") + "}")
    }

    /// The wire form: the bytes (nil for NULL) and the format code (0 text, 1 binary). Text-format values
    /// end with a NUL byte, as libpq reads them as C strings.
    var wire: (bytes: [UInt8]?, format: Int32) {
        switch self {
        case .integer(let value): return (Array(String(value).utf8) + [0], 0)
        case .text(let value): return (Array(value.utf8) + [0], 0)
        case .bytes(let value): return (value, 1)
        case .bool(let value): return (value ? [0x74, 0] : [0x66, 0], 0)
        case .null: return (nil, 0)
        }
    }
}
