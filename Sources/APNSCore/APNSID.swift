/// Helpers for `apns-id`: the canonical 8-4-4-4-12 hex UUID that identifies one notification.
public enum APNSID {
    /// A new random (version 4) UUID in lowercase, as APNs itself generates.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    /// A new version 4 UUID in lowercase, drawing randomness from `generator`.
    public static func generate(using generator: inout some RandomNumberGenerator) -> String {
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for shift in 0..<8 {
            bytes[shift] = UInt8(truncatingIfNeeded: high >> (56 - 8 * shift))
            bytes[8 + shift] = UInt8(truncatingIfNeeded: low >> (56 - 8 * shift))
        }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (position, byte) in bytes.enumerated() {
            if position == 4 || position == 6 || position == 8 || position == 10 { text.append(UInt8(ascii: "-")) }
            text.append(JSONValue.hexDigit(byte >> 4))
            text.append(JSONValue.hexDigit(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `text` is 8-4-4-4-12 hex digits with dashes; either case, as APNs accepts.
    public static func isValid(_ text: some StringProtocol) -> Bool {
        if let result = text.utf8.withContiguousStorageIfAvailable(isValid(utf8:)) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(isValid(utf8:))
    }

    private static func isValid(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let dash = UInt8(ascii: "-")
        guard bytes.count == 36, bytes[8] == dash, bytes[13] == dash, bytes[18] == dash, bytes[23] == dash else {
            return false
        }
        for position in 0..<36 where position != 8 && position != 13 && position != 18 && position != 23 {
            let byte = bytes[position]
            let folded = byte | 0x20  // ASCII letters to lowercase
            guard (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "f")) else { return false }
        }
        return true
    }
}
