import Foundation

/// The fields of an `application/x-www-form-urlencoded` body (what the console's forms post).
struct ConsoleForm: Sendable {
    /// Fields in body order; a name may repeat.
    let fields: [(name: String, value: String)]

    /// Parses `body`: `name=value` pairs joined by `&`, `+` for space, `%XX` escapes.
    init(body: [UInt8]) {
        var fields: [(name: String, value: String)] = []
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            fields.append((name, value))
        }
        self.fields = fields
    }

    /// The first value of `name`, or nil.
    func value(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The first value of `name` with surrounding white space removed; nil when absent or empty.
    func text(_ name: String) -> String? {
        guard let value = value(name) else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var rest = bytes
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), rest.count >= 2, let high = Self.hex(rest[rest.startIndex]),
                let low = Self.hex(rest[rest.startIndex + 1])
            {
                out.append(high << 4 | low)
                rest = rest.dropFirst(2)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
