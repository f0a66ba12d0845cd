/// Escaping for text the console writes into HTML, in element content and in quoted attribute values alike.
///
/// Every value that comes from a request, the store, the configuration or APNs goes through `escape` before
/// it reaches a page; the page templates themselves are constants.
enum HTML {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references, and NUL dropped.
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { needsEscape($0) }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}": continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` percent-encoded for one path segment or query value: everything but unreserved characters.
    static func urlComponent(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0x0F)]))
            }
        }
        return out
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"")
            || byte == UInt8(ascii: "'") || byte == 0
    }
}
