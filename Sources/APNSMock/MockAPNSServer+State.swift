public import APNSCore
public import Foundation
import PushSync

extension MockAPNSServer {
    /// Registers `token` for `topic`: from then on other tokens sent to `topic` get 400
    /// DeviceTokenNotForTopic. A topic with no registered token accepts any well-formed token.
    /// Clears an earlier unregistered or expired mark of `token`.
    public func registerToken(_ token: String, topic: String) {
        core.registry.register(token, topic: topic)
    }

    /// Registers `token` for `topic`.
    public func registerToken(_ token: DeviceToken, topic: String) {
        registerToken(token.hex, topic: topic)
    }

    /// From now on `token` gets 410 Unregistered with `date` (milliseconds since 1970) as its timestamp.
    public func unregisterToken(_ token: String, at date: Date) {
        core.registry.unregister(token, at: date)
    }

    /// From now on `token` gets 410 Unregistered with `date` as its timestamp.
    public func unregisterToken(_ token: DeviceToken, at date: Date) {
        unregisterToken(token.hex, at: date)
    }

    /// From now on `token` gets 410 ExpiredToken.
    public func expireToken(_ token: String) {
        core.registry.expire(token)
    }

    /// From now on `token` gets 410 ExpiredToken.
    public func expireToken(_ token: DeviceToken) {
        expireToken(token.hex)
    }

    /// Forgets every registered, unregistered and expired token.
    public func clearTokens() {
        core.registry.clear()
    }

    /// Replaces the programmable handler while running (nil: default rules only).
    public func setHandler(_ handler: MockAPNSHandler?) {
        core.handler.withLock { $0 = MockAPNSHandlerBox(handler) }
    }

    /// Every decided notification since start or `reset()`, in decision order (none in accept-all mode).
    public func records() -> [MockAPNSRecord] {
        core.recorder.records
    }

    /// The ids (`MockAPNSRecord.connectionID`) of the connections the mock reset (`abruptCloseEveryStreams`
    /// and the like): answers still owed on them never reached the client, so their notifications may come again.
    public func abortedConnectionIDs() -> Set<Int> {
        core.recorder.abortedConnections
    }

    /// Every reset the mock made since start or `reset()` (at most `maxRecords`, the newest), each with the
    /// streams whose answers its client was still owed then (``MockAPNSReset``).
    public func resets() -> [MockAPNSReset] {
        core.recorder.resets
    }

    /// A snapshot of the counters.
    public func counters() -> MockAPNSCounters {
        core.recorder.counters
    }

    /// The most streams seen open at once on one connection.
    public var maxObservedConcurrentStreams: Int {
        core.recorder.counters.maxObservedConcurrentStreams
    }

    /// Returns once at least `count` notifications were accepted since start or `reset()` (at once if
    /// they already were), or when the waiting task is cancelled.
    public func waitForAccepted(count: Int) async {
        await core.recorder.waitForAccepted(count: count)
    }

    /// The oldest rejection not returned by an earlier call (since `reset()`), waiting for one if needed.
    public func nextRejection() async -> MockAPNSRecord {
        await core.recorder.nextRejection()
    }

    /// Forgets records, resets, pending rejections and counters (connection totals stay); token state stays.
    public func reset() {
        core.recorder.reset()
    }
}
