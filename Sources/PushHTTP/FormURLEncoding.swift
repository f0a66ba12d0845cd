/// `application/x-www-form-urlencoded` text, as query strings and HTML forms write it
/// (WHATWG URL Standard, "application/x-www-form-urlencoded parsing": https://url.spec.whatwg.org/#urlencoded-parsing).
package enum FormURLEncoding {
    /// Splits `a=1&b=x%20y` into decoded pairs in order; a name may repeat, a pair without `=` has an empty value.
    package static func pairs<Bytes: Collection<UInt8>>(_ text: Bytes) -> [(name: String, value: String)] {
        text.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { part in
            let pieces = part.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(pieces[0]), pieces.count > 1 ? decode(pieces[1]) : "")
        }
    }

    /// Decodes `%XX` escapes and `+` (a space); malformed escapes are kept as written.
    package static func decode<Bytes: Collection<UInt8>>(_ text: Bytes) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var rest = text[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), rest.count >= 2, let high = HexDigit.value(rest[rest.startIndex]),
                let low = HexDigit.value(rest[rest.index(after: rest.startIndex)])
            {
                bytes.append(high << 4 | low)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
