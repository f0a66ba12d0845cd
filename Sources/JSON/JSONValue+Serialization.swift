extension JSONValue {
    /// Compact JSON text as UTF-8: object keys sorted by their UTF-8 bytes, no whitespace,
    /// integers in decimal, doubles in Swift's shortest round-trip form, non-finite doubles as `null`.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(to: &out)
        return out
    }

    /// Appends the compact JSON text of this value to `out`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let value):
            out.append(contentsOf: value ? "true".utf8 : "false".utf8)
        case .int(let value):
            out.append(contentsOf: String(value).utf8)
        case .double(let value):
            JSONValue.writeDouble(value, to: &out)
        case .string(let value):
            JSONValue.writeString(value, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // The members themselves are sorted, not their keys: no lookup (and hash) of each key afterwards.
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (position, member) in sorted.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `value` as a JSON number (shortest round-trip digits), or `null` when not finite.
    static func writeDouble(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        // Swift's description is deterministic and already valid JSON: "0.5", "1.0", "1e-07", "1e+20".
        out.append(contentsOf: value.description.utf8)
    }

    /// Appends `value` as a quoted JSON string: `"` and `\` escaped, control characters as
    /// short escapes or `\u00XX`, everything else (non-ASCII included) as raw UTF-8.
    public static func writeString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = value
        // Most strings (ids, tokens, words) need no escape: copy their bytes in one go.
        let copied = text.withUTF8 { bytes -> Bool in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                return false
            }
            out.append(contentsOf: bytes)
            return true
        }
        if !copied { writeEscaped(text, to: &out) }
        out.append(UInt8(ascii: "\""))
    }

    private static func writeEscaped(_ value: String, to out: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x00..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0x0F))
            default:
                out.append(byte)
            }
        }
    }

    /// The lowercase ASCII hex digit for a nibble.
    @inlinable
    public static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10
    }
}
