package import Foundation

/// When a failed webhook delivery is tried again: doubling delays from `initialDelay` up to `maxDelay`, until
/// the event is older than `giveUpAfter` (26 hours by default: "at least 24 hours" with room for an outage
/// that began just before an event).
public struct WebhookRetryPolicy: Sendable, Equatable {
    /// The delay after the first failed attempt.
    public var initialDelay: Duration
    /// The longest delay between two attempts.
    public var maxDelay: Duration
    /// How long after the event attempts go on; then the delivery ends `failed`.
    public var giveUpAfter: Duration

    /// A policy from its parts.
    public init(initialDelay: Duration = .seconds(5), maxDelay: Duration = .seconds(1_800), giveUpAfter: Duration = .seconds(26 * 3_600)) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.giveUpAfter = giveUpAfter
    }

    /// The default schedule: 5 s, 10 s, 20 s … 30 min, for 26 hours.
    public static let `default` = WebhookRetryPolicy()

    /// The delay after the `attempts`-th failed attempt, with up to 10% jitter by `id` so that many events
    /// failed together do not all come due in the same instant.
    public func delay(afterAttempt attempts: Int, id: String) -> Duration {
        let exponent = Double(min(max(attempts - 1, 0), 30))
        let base = min(initialDelay / .seconds(1) * pow(2, exponent), maxDelay / .seconds(1))
        let spread = Double(UInt64(truncatingIfNeeded: id.utf8.reduce(0) { $0 &* 31 &+ Int($1) }) % 1_000) / 10_000
        return .seconds(base * (1 + spread))
    }

    /// The state and due time after a failed attempt at `now` of an event created at `createdAt`.
    package func afterFailure(attempts: Int, id: String, createdAt: Date, now: Date) -> (WebhookDeliveryState, Date) {
        let next = now.addingTimeInterval(delay(afterAttempt: attempts, id: id) / .seconds(1))
        if next.timeIntervalSince(createdAt) > giveUpAfter / .seconds(1) { return (.failed, now) }
        return (.pending, next)
    }
}
