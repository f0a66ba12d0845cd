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
    /// A one-dimensional array already in PostgreSQL's binary format (see `textArray`, `integerArray`,
    /// `byteaArray`): the server reads it without parsing or unquoting any text.
    case binaryArray([UInt8])
    /// SQL NULL.
    case null

    /// `.integer`, or `.null` for nil.
    static func integer(_ value: Int?) -> PostgresValue { value.map { .integer(Int64($0)) } ?? .null }
    /// `.integer`, or `.null` for nil.
    static func integer(_ value: Int64?) -> PostgresValue { value.map { .integer($0) } ?? .null }
    /// `.text`, or `.null` for nil.
    static func text(_ value: String?) -> PostgresValue { value.map { .text($0) } ?? .null }

    /// A `text[]` parameter (nil elements as NULL): for `= ANY ($n::text[])` and `unnest`.
    static func textArray(_ values: [String?]) -> PostgresValue {
        binaryArray(elementType: 25, values.map { $0.map { Array($0.utf8) } })
    }

    /// A `bigint[]` parameter (nil as NULL).
    static func integerArray(_ values: [Int64?]) -> PostgresValue {
        binaryArray(elementType: 20, values.map { $0.map { withUnsafeBytes(of: $0.bigEndian, Array.init) } })
    }

    /// A `bytea[]` parameter (nil as NULL).
    static func byteaArray(_ values: [[UInt8]?]) -> PostgresValue {
        binaryArray(elementType: 17, values)
    }

    /// The binary form `array_recv` reads: dimensions (one, or none when empty), a has-NULLs flag, the
    /// element type's OID, the length and lower bound (1), then each element as a length (-1 for NULL) and
    /// its bytes in the element type's binary form.
    private static func binaryArray(elementType: UInt32, _ elements: [[UInt8]?]) -> PostgresValue {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
        func append(_ value: Int32) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }
        append(elements.isEmpty ? 0 : 1)
        append(elements.contains { $0 == nil } ? 1 : 0)
        append(Int32(bitPattern: elementType))
        if !elements.isEmpty {
            append(Int32(elements.count))
            append(1)
        }
        for element in elements {
            guard let element else {
                append(-1)
                continue
            }
            append(Int32(element.count))
            bytes.append(contentsOf: element)
        }
        return .binaryArray(bytes)
    }

    /// The wire form: the bytes (nil for NULL) and the format code (0 text, 1 binary). Text-format values
    /// end with a NUL byte, as libpq reads them as C strings.
    var wire: (bytes: [UInt8]?, format: Int32) {
        switch self {
        case .integer(let value): return (Array(String(value).utf8) + [0], 0)
        case .text(let value): return (Array(value.utf8) + [0], 0)
        case .bytes(let value), .binaryArray(let value): return (value, 1)
        case .bool(let value): return (value ? [0x74, 0] : [0x66, 0], 0)
        case .null: return (nil, 0)
        }
    }
}
