import Foundation

/// The durable queue of notifications.
public protocol OutboxRepository: Sendable {
    /// Stores `items` as queued, all or none.
    func enqueue(_ items: [OutboxItem]) async throws
    /// Claims up to `limit` due rows (in flight, attempt counted); expired rows end as `expired`.
    func claim(limit: Int, now: Date) async throws -> [OutboxItem]
    /// Records outcomes of in-flight rows; returns the new state of each row changed.
    @discardableResult
    func complete(_ results: [(id: String, result: OutboxResult)], now: Date) async throws -> [String: OutboxState]
    /// Puts in-flight rows back to queued; returns how many.
    @discardableResult
    func recoverInFlight() async throws -> Int
    /// The row with `id`.
    func item(id: String) async throws -> OutboxItem?
    /// The rows of one push, in enqueue order.
    func items(pushID: String) async throws -> [OutboxItem]
    /// Rows per state (every state present).
    func counts() async throws -> [OutboxState: Int]
    /// Queued plus in-flight rows.
    func depth() async throws -> Int
    /// Deletes terminal rows last changed before `date`; returns how many.
    @discardableResult
    func purge(olderThan date: Date) async throws -> Int
}

/// `OutboxRepository` over a `PushStore` (retry policy: the store's).
public struct SQLiteOutboxRepository: OutboxRepository {
    /// The store every call goes to.
    public let store: PushStore
    /// Wraps `store`.
    public init(store: PushStore) { self.store = store }
    /// See `OutboxRepository.enqueue`.
    public func enqueue(_ items: [OutboxItem]) async throws { try await store.enqueue(items) }
    /// See `OutboxRepository.claim`.
    public func claim(limit: Int, now: Date) async throws -> [OutboxItem] {
        try await store.claim(limit: limit, now: now)
    }
    /// See `OutboxRepository.complete`.
    @discardableResult
    public func complete(_ results: [(id: String, result: OutboxResult)], now: Date) async throws -> [String: OutboxState] {
        try await store.complete(results, now: now)
    }
    /// See `OutboxRepository.recoverInFlight`.
    @discardableResult
    public func recoverInFlight() async throws -> Int { try await store.recoverInFlight() }
    /// See `OutboxRepository.item(id:)`.
    public func item(id: String) async throws -> OutboxItem? { try await store.outboxItem(id: id) }
    /// See `OutboxRepository.items(pushID:)`.
    public func items(pushID: String) async throws -> [OutboxItem] { try await store.outboxItems(pushID: pushID) }
    /// See `OutboxRepository.counts`.
    public func counts() async throws -> [OutboxState: Int] { try await store.outboxCounts() }
    /// See `OutboxRepository.depth`.
    public func depth() async throws -> Int { try await store.outboxDepth() }
    /// See `OutboxRepository.purge(olderThan:)`.
    @discardableResult
    public func purge(olderThan date: Date) async throws -> Int { try await store.purgeOutbox(olderThan: date) }
}
