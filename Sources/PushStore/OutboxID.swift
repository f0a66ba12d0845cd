import APNSCore
public import Foundation
import PushSync

/// Row ids in lowercase UUID form, version 7: a millisecond timestamp, then 12 bits of sub-millisecond
/// time and 62 random bits.
///
/// Time-ordered ids make primary-key inserts append at the right edge of the B-tree instead of
/// dirtying a random leaf page per row (random v4 ids slowed enqueue several times on a large
/// outbox). Foundation's `UUID()` on Linux also opened `/dev/urandom` per call. The 12 bits after the
/// milliseconds are the sub-millisecond fraction of the clock (RFC 9562, section 6.2, method 3), which
/// keeps ids made in one millisecond roughly ordered; the random bits come from the kernel
/// (`getentropy`) 256 bytes at a time, so 32 ids share one system call.
public enum OutboxID {

    /// Random words from the kernel, each handed out once. A forked child would inherit unused words,
    /// so a process that forks without exec must not make ids on both sides.
    private struct RandomPool {
        var words = [UInt64](repeating: 0, count: 32)
        var next = 32

        mutating func take() -> UInt64 {
            if next == words.count {
                let filled = words.withUnsafeMutableBytes { getentropy($0.baseAddress!, $0.count) == 0 }
                if !filled {  // not expected; fall back to one call per word
                    var generator = SystemRandomNumberGenerator()
                    for index in words.indices { words[index] = generator.next() }
                }
                next = 0
            }
            defer { next += 1 }
            return words[next]
        }
    }

    private static let pool = PThreadLock(RandomPool())

    /// A new id such as "018f3c1e-7a2b-7c4d-9e8f-0a1b2c3d4e5f", unique and roughly ordered by creation time.
    public static func make() -> String {
        let now = max(0, Date().timeIntervalSince1970 * 1_000)
        let millis = UInt64(now)
        let fraction = UInt64((now - Double(millis)) * 4_096) & 0x0fff
        return format(high: (millis << 16) | fraction, random: pool.withLock { $0.take() })
    }

    /// A new id for a row created at `date`, its random bits from `generator`: for callers that make many
    /// ids at once with a generator of their own (the 12 bits after the milliseconds are random here).
    public static func make(at date: Date, using generator: inout some RandomNumberGenerator) -> String {
        let millis = UInt64(max(0, (date.timeIntervalSince1970 * 1_000).rounded(.down)))
        return format(high: (millis << 16) | (generator.next() & 0x0fff), random: generator.next())
    }

    /// The text of an id from its timestamp half (version bits added here) and 62 random bits.
    private static func format(high: UInt64, random: UInt64) -> String {
        APNSID.format(
            high: high | 0x7000,  // version 7
            low: (random & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000)  // variant, 62 random bits
    }
}
