/// A parameter of a PostgreSQL statement. Values always travel as parameters, never inside the SQL text.
package enum PostgresValue: Sendable, Equatable {
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
    package static func integer(_ value: Int?) -> PostgresValue { value.map { .integer(Int64($0)) } ?? .null }
    /// `.integer`, or `.null` for nil.
    package static func integer(_ value: Int64?) -> PostgresValue { value.map { .integer($0) } ?? .null }
    /// `.text`, or `.null` for nil.
    package static func text(_ value: String?) -> PostgresValue { value.map { .text($0) } ?? .null }

    /// A `text[]` parameter (nil elements as NULL): for `= ANY ($n::text[])` and `unnest`.
    package static func textArray(_ values: [String?]) -> PostgresValue {
        let bytes = values.reduce(0) { $0 + ($1?.utf8.count ?? 0) }
        return binaryArray(elementType: 25, count: values.count, payloadBytes: bytes, hasNulls: values.contains(nil)) { buffer in
            for value in values {
                guard let value else {
                    buffer.append32(-1)
                    continue
                }
                buffer.append32(Int32(value.utf8.count))
                buffer.append(contentsOf: value.utf8)
            }
        }
    }

    /// A `bigint[]` parameter (nil as NULL).
    package static func integerArray(_ values: [Int64?]) -> PostgresValue {
        let present = values.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        return binaryArray(elementType: 20, count: values.count, payloadBytes: 8 * present, hasNulls: present < values.count) { buffer in
            for value in values {
                guard let value else {
                    buffer.append32(-1)
                    continue
                }
                buffer.append32(8)
                buffer.append64(value)
            }
        }
    }

    /// A `bytea[]` parameter (nil as NULL).
    package static func byteaArray(_ values: [[UInt8]?]) -> PostgresValue {
        let bytes = values.reduce(0) { $0 + ($1?.count ?? 0) }
        return binaryArray(elementType: 17, count: values.count, payloadBytes: bytes, hasNulls: values.contains(nil)) { buffer in
            for value in values {
                guard let value else {
                    buffer.append32(-1)
                    continue
                }
                buffer.append32(Int32(value.count))
                buffer.append(contentsOf: value)
            }
        }
    }

    /// The binary form `array_recv` reads: dimensions (one, or none when empty), a has-NULLs flag, the
    /// element type's OID, the length and lower bound (1), then each element as a length (-1 for NULL) and
    /// its bytes in the element type's binary form, which `elements` appends (`payloadBytes` of them in
    /// all, besides the lengths): one buffer of the exact size, no array per element.
    private static func binaryArray(
        elementType: UInt32, count: Int, payloadBytes: Int, hasNulls: Bool, _ elements: (inout ArrayBuffer) -> Void
    ) -> PostgresValue {
        var buffer = ArrayBuffer(capacity: 20 + 4 * count + payloadBytes)
        buffer.append32(count == 0 ? 0 : 1)
        buffer.append32(hasNulls ? 1 : 0)
        buffer.append32(Int32(bitPattern: elementType))
        if count > 0 {
            buffer.append32(Int32(count))
            buffer.append32(1)
        }
        elements(&buffer)
        return .binaryArray(buffer.bytes)
    }

    /// The bytes of a binary array being written: integers go in big-endian, as the wire wants them.
    package struct ArrayBuffer {
        var bytes: [UInt8] = []

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        mutating func append32(_ value: Int32) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }
        mutating func append64(_ value: Int64) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }
        mutating func append(contentsOf utf8: String.UTF8View) { bytes.append(contentsOf: utf8) }
        mutating func append(contentsOf other: [UInt8]) { bytes.append(contentsOf: other) }
    }

    /// The wire form: the bytes (nil for NULL) and the format code (0 text, 1 binary). Text-format values
    /// end with a NUL byte, as libpq reads them as C strings.
    package var wire: (bytes: [UInt8]?, format: Int32) {
        switch self {
        case .integer(let value): return (Array(String(value).utf8) + [0], 0)
        case .text(let value): return (Array(value.utf8) + [0], 0)
        case .bytes(let value), .binaryArray(let value): return (value, 1)
        case .bool(let value): return (value ? [0x74, 0] : [0x66, 0], 0)
        case .null: return (nil, 0)
        }
    }
}
