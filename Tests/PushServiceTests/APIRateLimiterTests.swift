import PushService
import Synchronization
import Testing

@Suite("per-key token buckets")
struct APIRateLimiterTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ delta: Duration) { instant.withLock { $0 += delta } }
    }

    @Test("burst, then limited with the time to the next token, then recovery as time passes")
    func requestBucket() throws {
        let clock = ManualClock()
        let limiter = APIRateLimiter(clock: { clock.now })
        let key = try APIKey(name: "k", secret: "k", rateLimit: APIRateLimit(requestsPerSecond: 2, requestBurst: 4))
        for _ in 0..<4 { #expect(limiter.takeRequest(key) == .allowed) }
        #expect(limiter.takeRequest(key) == .limited(retryAfter: .milliseconds(500)))
        clock.advance(.milliseconds(500))
        #expect(limiter.takeRequest(key) == .allowed)
        #expect(limiter.takeRequest(key) == .limited(retryAfter: .milliseconds(500)))
        clock.advance(.seconds(60))
        // The bucket never holds more than its burst.
        for _ in 0..<4 { #expect(limiter.takeRequest(key) == .allowed) }
        #expect(limiter.takeRequest(key) != .allowed)
    }

    @Test("notifications: all or nothing, and more than the burst never passes")
    func notificationBucket() throws {
        let clock = ManualClock()
        let limiter = APIRateLimiter(clock: { clock.now })
        let key = try APIKey(name: "k", secret: "k", rateLimit: APIRateLimit(notificationsPerSecond: 100, notificationBurst: 1_000))
        #expect(limiter.takeNotifications(800, for: key) == .allowed)
        #expect(limiter.takeNotifications(300, for: key) == .limited(retryAfter: .seconds(1)))
        clock.advance(.seconds(1))
        #expect(limiter.takeNotifications(300, for: key) == .allowed)
        #expect(limiter.takeNotifications(1_001, for: key) == .exceedsBurst(1_000))
        // Requests are unlimited for this key, and keys without limits are never limited.
        #expect(limiter.takeRequest(key) == .allowed)
        let free = try APIKey(name: "free", secret: "free")
        #expect(limiter.takeNotifications(1_000_000, for: free) == .allowed)
    }

    @Test("each key has its own buckets; the burst defaults to one second's worth")
    func separateKeys() throws {
        let fixed = ContinuousClock.now
        let limiter = APIRateLimiter(clock: { fixed })
        let a = try APIKey(name: "a", secret: "a", rateLimit: APIRateLimit(requestsPerSecond: 2))
        let b = try APIKey(name: "b", secret: "b", rateLimit: APIRateLimit(requestsPerSecond: 2))
        #expect(limiter.takeRequest(a) == .allowed)
        #expect(limiter.takeRequest(a) == .allowed)
        #expect(limiter.takeRequest(a) != .allowed)
        #expect(limiter.takeRequest(b) == .allowed)
    }
}
