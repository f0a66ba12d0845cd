import JSON

/// Helpers for `apns-id`: the canonical 8-4-4-4-12 hex UUID that identifies one notification.
public enum APNSID {
    /// A new random (version 4) UUID in lowercase, as APNs itself generates.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    /// A new version 4 UUID in lowercase, drawing randomness from `generator`.
    public static func generate(using generator: inout some RandomNumberGenerator) -> String {
        var high = generator.next() as UInt64
        var low = generator.next() as UInt64
        high = high & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000  // version 4
        low = low & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000  // RFC 4122 variant
        return format(high: high, low: low)
    }

    /// The 128 bits `high`, `low` as 8-4-4-4-12 lowercase hex (version and variant bits as given): the
    /// package's one UUID formatter, for apns-ids and the outbox's row ids alike.
    public static func format(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { text in
            var position = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    text[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = nibble < 16 ? high : low
                text[position] = JSONValue.hexDigit(UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (nibble % 16))) & 0x0F)
                position += 1
            }
            return position
        }
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
            guard
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "f"))
            else { return false }
        }
        return true
    }
}
