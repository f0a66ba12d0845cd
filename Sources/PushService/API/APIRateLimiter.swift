import PushSync

/// Per-key token buckets for requests and notifications. Thread-safe.
///
/// A bucket holds at most its burst, refills at its rate, and a take either removes what it asks for or
/// nothing at all; a refused take says how long until it would succeed (for `Retry-After`).
public final class APIRateLimiter: Sendable {
    /// What a take decided.
    public enum Decision: Sendable, Equatable {
        /// Taken.
        case allowed
        /// Not taken; the bucket holds enough again after `retryAfter`.
        case limited(retryAfter: Duration)
        /// Not taken and never will be: more than the bucket's burst was asked for at once.
        case exceedsBurst(Double)
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private struct Buckets {
        var requests: [String: Bucket] = [:]
        var notifications: [String: Bucket] = [:]
    }

    private let state = PThreadLock(Buckets())
    private let clock: @Sendable () -> ContinuousClock.Instant

    /// A limiter reading time from `clock` (monotonic; tests pass their own).
    public init(clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.clock = clock
    }

    /// Takes one request from `key`'s request bucket.
    public func takeRequest(_ key: APIKey) -> Decision {
        guard let limit = key.rateLimit, let rate = limit.requestsPerSecond, let burst = limit.effectiveRequestBurst
        else { return .allowed }
        return take(1, rate: rate, burst: burst, name: key.name, in: \.requests)
    }

    /// Takes `count` notifications from `key`'s notification bucket.
    public func takeNotifications(_ count: Int, for key: APIKey) -> Decision {
        guard let limit = key.rateLimit, let rate = limit.notificationsPerSecond,
            let burst = limit.effectiveNotificationBurst
        else { return .allowed }
        return take(Double(count), rate: rate, burst: burst, name: key.name, in: \.notifications)
    }

    private func take(
        _ amount: Double, rate: Double, burst: Double, name: String,
        in buckets: WritableKeyPath<Buckets, [String: Bucket]>
    ) -> Decision {
        guard amount <= burst else { return .exceedsBurst(burst) }
        let now = clock()
        return state.withLock { state in
            var bucket = state[keyPath: buckets][name] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, (now - bucket.updated) / .seconds(1)) * rate)
            bucket.updated = now
            let decision: Decision
            if bucket.tokens >= amount {
                bucket.tokens -= amount
                decision = .allowed
            } else {
                decision = .limited(retryAfter: .seconds((amount - bucket.tokens) / rate))
            }
            state[keyPath: buckets][name] = bucket
            return decision
        }
    }
}
