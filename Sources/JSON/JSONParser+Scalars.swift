extension JSONParser {
    // MARK: Strings

    /// Parses a string starting at its opening quote; validates UTF-8 and escapes.
    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        var segmentStart = index
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                defer { index += 1 }
                if !escaped {
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<index]))
                let text = String(decoding: scratch, as: UTF8.self)
                scratch.removeAll(keepingCapacity: true)
                return text
            case UInt8(ascii: "\\"):
                if !escaped {
                    escaped = true
                    scratch.removeAll(keepingCapacity: true)
                }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<index]))
                try parseEscape()
                segmentStart = index
            case 0x00..<0x20:
                throw fail("unescaped control character in a string")
            case 0x20..<0x80:
                index += 1
            default:
                try skipMultiByteScalar()
            }
        }
        throw JSONParseError("unterminated string", offset: start - 1)
    }

    /// Checks one multi-byte UTF-8 sequence (Unicode Table 3-7) and steps over it.
    private mutating func skipMultiByteScalar() throws(JSONParseError) {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: throw fail("invalid UTF-8 lead byte")
        }
        guard bytes.count - index >= length else { throw fail("truncated UTF-8 sequence") }
        let second = bytes[index + 1]
        guard second >= low, second <= high else { throw JSONParseError("invalid UTF-8 sequence", offset: index + 1) }
        var offset = 2
        while offset < length {
            guard bytes[index + offset] & 0xC0 == 0x80 else {
                throw JSONParseError("invalid UTF-8 sequence", offset: index + offset)
            }
            offset += 1
        }
        index += length
    }

    /// Decodes the escape at `index` (a backslash) into `scratch`.
    private mutating func parseEscape() throws(JSONParseError) {
        guard index + 1 < bytes.count else { throw fail("unterminated escape") }
        let code = bytes[index + 1]
        let simple: UInt8
        switch code {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            try parseUnicodeEscape()
            return
        default:
            throw fail("invalid escape sequence")
        }
        scratch.append(simple)
        index += 2
    }

    /// Decodes `\uXXXX`, pairing surrogates; a lone surrogate is an error.
    private mutating func parseUnicodeEscape() throws(JSONParseError) {
        let escapeStart = index
        let first = try readHex4(at: index + 2)
        index += 6
        var scalarValue = UInt32(first)
        if (0xDC00...0xDFFF).contains(first) {
            throw JSONParseError("lone low surrogate escape", offset: escapeStart)
        }
        if (0xD800...0xDBFF).contains(first) {
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw JSONParseError("lone high surrogate escape", offset: escapeStart)
            }
            let second = try readHex4(at: index + 2)
            guard (0xDC00...0xDFFF).contains(second) else {
                throw JSONParseError("lone high surrogate escape", offset: escapeStart)
            }
            index += 6
            scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        }
        // Valid by construction: surrogates were paired or rejected above.
        let scalar = Unicode.Scalar(scalarValue).unsafelyUnwrapped
        for unit in UTF8.encode(scalar).unsafelyUnwrapped { scratch.append(unit) }
    }

    /// Reads four hex digits at `offset`.
    private func readHex4(at offset: Int) throws(JSONParseError) -> UInt16 {
        guard bytes.count - offset >= 4 else { throw JSONParseError("truncated \\u escape", offset: offset) }
        var value: UInt16 = 0
        for position in offset..<(offset + 4) {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - 0x61 + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - 0x41 + 10
            default: throw JSONParseError("invalid hex digit in \\u escape", offset: position)
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    // MARK: Numbers

    /// Parses an RFC 8259 number: integers that fit become `.int`, others `.double`.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let firstDigit = peekDigit() else { throw fail("expected a digit") }
        var integer: Int64 = 0
        var overflow = false
        if firstDigit == 0 {
            index += 1
            if peekDigit() != nil { throw fail("leading zero in a number") }
        } else {
            while let digit = peekDigit() {
                let (times10, o1) = integer.multipliedReportingOverflow(by: 10)
                let (next, o2) =
                    negative
                    ? times10.subtractingReportingOverflow(Int64(digit))
                    : times10.addingReportingOverflow(Int64(digit))
                overflow = overflow || o1 || o2
                integer = next
                index += 1
            }
        }
        var isInteger = true
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            index += 1
            guard peekDigit() != nil else { throw fail("expected a digit after '.'") }
            while peekDigit() != nil { index += 1 }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            isInteger = false
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard peekDigit() != nil else { throw fail("expected a digit in the exponent") }
            while peekDigit() != nil { index += 1 }
        }
        if isInteger && !overflow {
            return .int(integer)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONParseError("number out of range", offset: start)
        }
        return .double(value)
    }

    private func peekDigit() -> UInt8? {
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        return byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : nil
    }

    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }
}
