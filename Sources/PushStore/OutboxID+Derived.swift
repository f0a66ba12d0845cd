public import APNSCore
public import Foundation

/// Notification ids derived from their push's first one, so that a push's notifications are positions in
/// it and need no stored id of their own.
///
/// A push's first id (its base) is an ordinary version 7 id (`OutboxID`) whose last 32 bits are zero; the
/// id of its notification k is the base with k in those bits. So an id names its push (the base) and its
/// position, and a store that writes a push once finds any of its notifications from the id alone
/// (`position(of:)`). The base keeps 30 random bits beside the 12 of the sub-millisecond field: ids made
/// in one millisecond still differ by 42 random bits.
extension OutboxID {
    /// How many notifications one base can name.
    public static let derivedCapacity = 1 << 32

    /// A new base id for a push created at `date` (its notification 0), its random bits from `generator`.
    public static func makeBase(at date: Date, using generator: inout some RandomNumberGenerator) -> String {
        let millis = UInt64(max(0, (date.timeIntervalSince1970 * 1_000).rounded(.down)))
        let high = (millis << 16) | 0x7000 | (generator.next() & 0x0fff)
        let low = (generator.next() & 0x3fff_ffff_0000_0000) | 0x8000_0000_0000_0000
        return APNSID.format(high: high, low: low)
    }

    /// A new base id, its random bits from the kernel.
    public static func makeBase() -> String {
        var generator = SystemRandomNumberGenerator()
        return makeBase(at: Date(), using: &generator)
    }

    /// The id of notification `index` of the push whose base is `base` (`base` itself for 0); nil unless
    /// `base` is a base (a UUID whose last 32 bits are zero) and `index` fits in 32 bits.
    public static func derived(from base: String, index: Int) -> String? {
        guard index >= 0, index < derivedCapacity, let (high, low) = bits(of: base), low & 0xffff_ffff == 0 else {
            return nil
        }
        return index == 0 ? base : APNSID.format(high: high, low: low | UInt64(index))
    }

    /// The ids of notifications 0..<count of a new push created at `date`, each also as an `apns-id` (a
    /// notification is sent with its own id as its `apns-id`, so Apple's records and the outbox name it
    /// alike).
    public static func makeDerived(
        count: Int, at date: Date, using generator: inout some RandomNumberGenerator
    ) -> [(id: String, apnsID: APNSID)] {
        precondition(count < derivedCapacity, "a push names at most 2^32 notifications")
        let base = makeBase(at: date, using: &generator)
        let (high, low) = bits(of: base)!
        return (0..<count).map { index in
            let id = index == 0 ? base : APNSID.format(high: high, low: low | UInt64(index))
            return (id, APNSID(checked: id))
        }
    }

    /// The base (lowercase) and position of a derived id; nil unless `id` is a UUID (either case). Any UUID
    /// parses, its last 32 bits as the position: whether a push with that base exists is the store's to say.
    public static func position(of id: String) -> (base: String, index: Int)? {
        guard let (high, low) = bits(of: id) else { return nil }
        return (APNSID.format(high: high, low: low & ~0xffff_ffff), Int(low & 0xffff_ffff))
    }

    /// The 128 bits of a UUID's text (8-4-4-4-12 hex, either case), or nil.
    public static func bits(of id: String) -> (high: UInt64, low: UInt64)? {
        var id = id
        return id.withUTF8 { bytes -> (UInt64, UInt64)? in
            guard bytes.count == 36 else { return nil }
            var words: (UInt64, UInt64) = (0, 0)
            var digits = 0
            for (offset, byte) in bytes.enumerated() {
                if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                let value: UInt64
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt64(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): value = UInt64(byte - UInt8(ascii: "A") + 10)
                default: return nil
                }
                if digits < 16 { words.0 = words.0 << 4 | value } else { words.1 = words.1 << 4 | value }
                digits += 1
            }
            return words
        }
    }
}
