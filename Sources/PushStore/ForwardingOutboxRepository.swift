public import Foundation

/// An `OutboxRepository` that wraps another (`base`) and hands every call on to it, but for the calls it
/// implements itself: a wrapper (the worker's wake-up, a test's failing or gated store) writes only what it
/// changes.
public protocol ForwardingOutboxRepository: OutboxRepository {
    /// The repository the calls go to.
    var base: any OutboxRepository { get }
}

extension ForwardingOutboxRepository {
    public func enqueue(_ items: [OutboxItem]) async throws { try await base.enqueue(items) }

    public func claim(limit: Int, now: Date) async throws -> OutboxClaim { try await base.claim(limit: limit, now: now) }

    public func complete(_ results: [OutboxCompletion], now: Date) async throws -> [String: OutboxState] {
        try await base.complete(results, now: now)
    }

    public func recoverInFlight() async throws -> Int { try await base.recoverInFlight() }

    public func item(id: String) async throws -> OutboxItem? { try await base.item(id: id) }

    public func items(pushID: String) async throws -> [OutboxItem] { try await base.items(pushID: pushID) }

    public func counts() async throws -> [OutboxState: Int] { try await base.counts() }

    public func pendingCounts() async throws -> [OutboxState: Int] { try await base.pendingCounts() }

    public func depth() async throws -> Int { try await base.depth() }

    public func oldestPendingEnqueuedAt() async throws -> Date? { try await base.oldestPendingEnqueuedAt() }

    public func pendingByTopic() async throws -> [OutboxTopicDepth] { try await base.pendingByTopic() }

    public func purge(olderThan date: Date, limit: Int) async throws -> Int { try await base.purge(olderThan: date, limit: limit) }

    public var leaseRenewalInterval: Duration? { base.leaseRenewalInterval }

    public func renewLeases(_ holds: [OutboxHold], now: Date) async throws -> Set<String> { try await base.renewLeases(holds, now: now) }
}
