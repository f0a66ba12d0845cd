import Foundation

/// Exponential backoff for retried notifications: `baseDelay · 2^(attempts-1)`, capped at `maxDelay`,
/// shortened by a deterministic jitter, until `maxAttempts` sends have been tried.
public struct OutboxRetryPolicy: Sendable, Equatable {
    /// Sends tried before a retried row becomes `failed`.
    public var maxAttempts: Int
    /// The delay after the first failed attempt.
    public var baseDelay: Duration
    /// The longest delay.
    public var maxDelay: Duration
    /// Fraction (0…1) by which a delay may be shortened; the amount is a hash of the row id and
    /// attempt, so it is reproducible in tests yet spreads rows that failed together.
    public var jitter: Double

    /// 8 attempts, 1 s doubling to at most 5 min, no jitter.
    public static let `default` = OutboxRetryPolicy()

    /// Creates a policy.
    public init(maxAttempts: Int = 8, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(300), jitter: Double = 0) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The delay before the next attempt of row `id` after its `attempts`-th attempt failed.
    public func delay(afterAttempt attempts: Int, id: String) -> Duration {
        let exponent = Double(max(0, min(attempts - 1, 62)))
        let raw = min(baseDelay / .seconds(1) * pow(2, exponent), maxDelay / .seconds(1))
        guard jitter > 0 else { return .seconds(raw) }
        return .seconds(raw * (1 - jitter * Self.unitHash(id, attempts)))
    }

    /// A value in [0, 1) from FNV-1a over the id and attempt number.
    package static func unitHash(_ id: String, _ attempts: Int) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ UInt64(truncatingIfNeeded: attempts)) &* 0x100_0000_01b3
        return Double(hash >> 11) / Double(1 << 53)
    }
}
