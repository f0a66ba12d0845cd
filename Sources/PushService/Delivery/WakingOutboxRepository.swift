import Foundation
import PushStore

/// An `OutboxRepository` that wakes the outbox worker after every successful enqueue, so rows written by
/// anyone (the push API, the match service's notifier) are picked up at once, without polling.
struct WakingOutboxRepository: OutboxRepository {
    let base: any OutboxRepository
    let wake: @Sendable () -> Void

    func enqueue(_ items: [OutboxItem]) async throws {
        try await base.enqueue(items)
        if !items.isEmpty { wake() }
    }

    func claim(limit: Int, now: Date) async throws -> OutboxClaim { try await base.claim(limit: limit, now: now) }

    @discardableResult
    func complete(_ results: [OutboxCompletion], now: Date) async throws -> [String: OutboxState] {
        try await base.complete(results, now: now)
    }

    @discardableResult
    func recoverInFlight() async throws -> Int { try await base.recoverInFlight() }

    func item(id: String) async throws -> OutboxItem? { try await base.item(id: id) }

    func items(pushID: String) async throws -> [OutboxItem] { try await base.items(pushID: pushID) }

    func counts() async throws -> [OutboxState: Int] { try await base.counts() }

    func pendingCounts() async throws -> [OutboxState: Int] { try await base.pendingCounts() }

    func depth() async throws -> Int { try await base.depth() }

    func oldestPendingEnqueuedAt() async throws -> Date? { try await base.oldestPendingEnqueuedAt() }

    func pendingByTopic() async throws -> [OutboxTopicDepth] { try await base.pendingByTopic() }

    @discardableResult
    func purge(olderThan date: Date, limit: Int) async throws -> Int { try await base.purge(olderThan: date, limit: limit) }

    var leaseRenewalInterval: Duration? { base.leaseRenewalInterval }

    func renewLeases(_ holds: [OutboxHold], now: Date) async throws -> Set<String> { try await base.renewLeases(holds, now: now) }
}
