import Foundation

/// Row ids in lowercase UUID form, version 7: a millisecond timestamp followed by random bits.
///
/// Time-ordered ids make primary-key inserts append at the right edge of the B-tree instead of
/// dirtying a random leaf page per row (random v4 ids slowed enqueue several times on a large
/// outbox). Foundation's `UUID()` on Linux also opened `/dev/urandom` per call; this uses `getrandom`.
public enum OutboxID {
    private static let digits = Array("0123456789abcdef".utf8)

    /// A new id such as "018f3c1e-7a2b-7c4d-9e8f-0a1b2c3d4e5f", unique and roughly ordered by creation time.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let millis = UInt64(max(0, Date().timeIntervalSince1970 * 1_000))
        let random = generator.next() as UInt64
        let high = (millis << 16) | 0x7000 | (random & 0x0fff)                       // time, version 7, 12 random bits
        let low = ((generator.next() as UInt64) & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000  // variant
        var bytes = [UInt8]()
        bytes.reserveCapacity(36)
        for index in 0..<32 {
            if index == 8 || index == 12 || index == 16 || index == 20 { bytes.append(UInt8(ascii: "-")) }
            let word = index < 16 ? high : low
            let shift = UInt64(60 - 4 * (index % 16))
            bytes.append(digits[Int((word >> shift) & 0xf)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
