import Foundation

/// System randomness fetched in blocks: one `getrandom` per 4 KiB instead of one per number, for code that
/// needs many random ids at once (a 5,000-token push needs 10,000 of them).
struct BulkRandom: RandomNumberGenerator {
    private var words: [UInt64]
    private var position: Int

    /// A generator that fetches `blockWords` random words at a time.
    init(blockWords: Int = 512) {
        words = [UInt64](repeating: 0, count: max(1, blockWords))
        position = words.count
    }

    mutating func next() -> UInt64 {
        if position == words.count {
            words.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                arc4random_buf(base, buffer.count)
            }
            position = 0
        }
        defer { position += 1 }
        return words[position]
    }
}

/// New outbox row ids, in the store's format (lowercase UUID version 7: a millisecond timestamp, then
/// random bits, so rows inserted together sit together in the primary-key index), drawn from `BulkRandom`.
struct RowIDs {
    private static let digits = Array("0123456789abcdef".utf8)
    private var random: BulkRandom

    init(random: BulkRandom = BulkRandom()) {
        self.random = random
    }

    /// The random generator, for other ids made alongside (e.g. apns-ids).
    var generator: BulkRandom {
        get { random }
        _modify { yield &random }
    }

    /// A new id for a row created at `millis` (milliseconds since 1970).
    mutating func make(millis: UInt64) -> String {
        let high = (millis << 16) | 0x7000 | (random.next() & 0x0fff)
        let low = (random.next() & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            for index in 0..<32 {
                if index == 8 || index == 12 || index == 16 || index == 20 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = index < 16 ? high : low
                let shift = UInt64(60 - 4 * (index % 16))
                buffer[position] = Self.digits[Int((word >> shift) & 0xf)]
                position += 1
            }
            return position
        }
    }
}
