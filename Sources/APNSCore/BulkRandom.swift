import Foundation

/// System randomness fetched in blocks: one `getrandom` per 4 KiB instead of one per number, for code that
/// needs many random ids at once (a 5,000-token push needs 10,000 of them; ``APNSID/generate(using:)``).
public struct BulkRandom: RandomNumberGenerator {
    private var words: [UInt64]
    private var position: Int

    /// A generator that fetches `blockWords` random words at a time.
    public init(blockWords: Int = 512) {
        words = [UInt64](repeating: 0, count: max(1, blockWords))
        position = words.count
    }

    /// The next random word (a system call once per block).
    public mutating func next() -> UInt64 {
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
