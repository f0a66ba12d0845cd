/// A strict recursive-descent JSON parser over a borrowed byte buffer.
///
/// Lives only for one `JSONValue.parse` call, so the unsafe buffer never escapes.
struct JSONParser {
    // Internal rather than private: the scanners in JSONParser+Scalars.swift use them.
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    private var depth = 0
    /// Reused for strings that contain escapes.
    var scratch: [UInt8] = []
    /// Members of the objects being parsed, innermost last; each object becomes a dictionary of
    /// exactly the right capacity when it closes, so dictionaries never grow while parsing.
    private var memberStack: [(key: String, value: JSONValue, offset: Int)] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected data after the JSON value") }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case let byte: throw fail("unexpected byte 0x\(String(byte, radix: 16))")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([:])
        }
        let base = memberStack.count
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw fail("expected ':' after an object key") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            memberStack.append((key, value, keyOffset))
            if try endsContainer(UInt8(ascii: "}"), in: "an object") { return .object(try popMembers(from: base)) }
        }
    }

    /// Moves the members above `base` into a dictionary; a repeated key is an error.
    private mutating func popMembers(from base: Int) throws(JSONParseError) -> [String: JSONValue] {
        var members = [String: JSONValue](minimumCapacity: memberStack.count - base)
        for member in memberStack[base...] where members.updateValue(member.value, forKey: member.key) != nil {
            throw JSONParseError("duplicate object key", offset: member.offset)
        }
        memberStack.removeSubrange(base...)
        return members
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            if try endsContainer(UInt8(ascii: "]"), in: "an array") { return .array(elements) }
        }
    }

    /// After a member or an element: true when `close` ends the container (consumed, the depth left),
    /// false after a `,` (consumed, with the whitespace after it); anything else is an error.
    private mutating func endsContainer(_ close: UInt8, in container: String) throws(JSONParseError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            index += 1
            skipWhitespace()
            return false
        case close:
            index += 1
            depth -= 1
            return true
        default:
            throw fail("expected ',' or '\(Character(Unicode.Scalar(close)))' in \(container)")
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > JSONValue.maximumDepth {
            throw fail("nesting deeper than \(JSONValue.maximumDepth) levels")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw fail("invalid literal") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw JSONParseError("invalid literal", offset: index + offset)
        }
        index += count
    }

    // MARK: Helpers

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    func fail(_ message: String) -> JSONParseError {
        JSONParseError(message, offset: index)
    }
}
