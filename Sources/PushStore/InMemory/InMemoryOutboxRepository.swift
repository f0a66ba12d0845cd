import APNSCore
public import Foundation

/// `OutboxRepository` in memory, with the same rules as the SQLite one (for tests).
public actor InMemoryOutboxRepository: OutboxRepository {
    private var rows: [String: OutboxItem] = [:]
    private var sequence: [String: Int] = [:]
    private var nextSequence = 0
    /// The retry schedule used by `complete`.
    public let retryPolicy: OutboxRetryPolicy
    private let webhooks: InMemoryWebhookRepository?

    /// An empty outbox with `retryPolicy`; rows that end rejected, failed or expired are reported to `webhooks`.
    public init(retryPolicy: OutboxRetryPolicy = .default, webhooks: InMemoryWebhookRepository? = nil) {
        self.retryPolicy = retryPolicy
        self.webhooks = webhooks
    }

    /// Reports rows that ended rejected, failed or expired: with the delivery result that ended them, or
    /// (expired) with what the row holds.
    private func report(_ ended: [(item: OutboxItem, result: APNSDeliveryResult?)], now: Date) {
        guard let webhooks, !ended.isEmpty else { return }
        let events = ended.compactMap { item, result -> WebhookEvent? in
            let event =
                if let result {
                    WebhookEvents.notification(item, state: item.state, result: result, now: now)
                } else {
                    WebhookEvents.notification(item, state: item.state, status: item.lastStatus, reason: item.lastReason, now: now)
                }
            guard let event else { return nil }
            return webhooks.wants(event.type) ? event : nil
        }
        if !events.isEmpty { webhooks.record(events) }
    }

    /// See `OutboxRepository.enqueue`.
    public func enqueue(_ items: [OutboxItem]) throws {
        var seen = Set<String>(minimumCapacity: items.count)
        for item in items {
            try item.validate()
            guard seen.insert(item.id).inserted, rows[item.id] == nil else { throw PushStoreError.duplicateID(item.id) }
        }
        for item in items {
            var row = item
            row.state = .queued
            row.attempts = 0
            row.lastStatus = nil
            row.lastReason = nil
            row.apnsUniqueID = nil
            row.nextAttemptAt = item.nextAttemptAt.storeNormalized
            row.createdAt = item.createdAt.storeNormalized
            row.updatedAt = row.createdAt
            rows[item.id] = row
            sequence[item.id] = nextSequence
            nextSequence += 1
        }
    }

    /// See `OutboxRepository.claim`.
    public func claim(limit: Int, now: Date) -> OutboxClaim {
        guard limit > 0 else { return OutboxClaim() }
        let millis = now.storeMillis
        let due = rows.values
            .filter { $0.state == .queued && $0.nextAttemptAt.storeMillis <= millis }
            .sorted { ($0.nextAttemptAt, sequence[$0.id] ?? 0) < ($1.nextAttemptAt, sequence[$1.id] ?? 0) }
        var claimed: [OutboxItem] = []
        var expired: [String] = []
        var ended: [(item: OutboxItem, result: APNSDeliveryResult?)] = []
        for var item in due {
            if claimed.count == limit { break }
            item.updatedAt = Date(storeMillis: millis)
            if item.isExpired(at: now) {
                item.state = .expired
                item.lastReason = .expired
                expired.append(item.id)
                ended.append((item, nil))
            } else {
                item.state = .inFlight
                item.attempts += 1
                claimed.append(item)
            }
            rows[item.id] = item
        }
        report(ended, now: now)
        return OutboxClaim(items: claimed, expired: expired)
    }

    /// See `OutboxRepository.complete`.
    @discardableResult
    public func complete(_ results: [OutboxCompletion], now: Date) -> [String: OutboxState] {
        let millis = now.storeMillis
        var states: [String: OutboxState] = [:]
        var ended: [(item: OutboxItem, result: APNSDeliveryResult?)] = []
        for completion in results {
            let id = completion.id
            guard var item = rows[id], item.state == .inFlight, item.attempts == completion.attempt else { continue }
            let next = OutboxTransition(
                completion.result, id: id, attempts: item.attempts, policy: retryPolicy, nowMillis: millis)
            next.apply(to: &item, nowMillis: millis)
            rows[id] = item
            states[id] = next.state
            if next.state == .rejected || next.state == .failed { ended.append((item, completion.result)) }
        }
        report(ended, now: now)
        return states
    }

    /// See `OutboxRepository.recoverInFlight`.
    @discardableResult
    public func recoverInFlight() -> Int {
        let ids = rows.values.filter { $0.state == .inFlight }.map(\.id)
        for id in ids { rows[id]?.state = .queued }
        return ids.count
    }

    /// See `OutboxRepository.item(id:)`.
    public func item(id: String) -> OutboxItem? { rows[id] }

    /// See `OutboxRepository.items(pushID:)`.
    public func items(pushID: String) -> [OutboxItem] {
        rows.values.filter { $0.pushID == pushID }.sorted { (sequence[$0.id] ?? 0) < (sequence[$1.id] ?? 0) }
    }

    /// See `OutboxRepository.counts`.
    public func counts() -> [OutboxState: Int] {
        var counts = Dictionary(uniqueKeysWithValues: OutboxState.allCases.map { ($0, 0) })
        for row in rows.values { counts[row.state, default: 0] += 1 }
        return counts
    }

    /// See `OutboxRepository.depth`.
    public func depth() -> Int {
        rows.values.filter { $0.state == .queued || $0.state == .inFlight }.count
    }

    /// See `OutboxRepository.oldestPendingEnqueuedAt`.
    public func oldestPendingEnqueuedAt() -> Date? {
        rows.values.filter { $0.state == .queued || $0.state == .inFlight }
            .min { (sequence[$0.id] ?? 0) < (sequence[$1.id] ?? 0) }?.createdAt
    }

    /// See `OutboxRepository.purge(olderThan:limit:)`.
    @discardableResult
    public func purge(olderThan date: Date, limit: Int) -> Int {
        let cutoff = date.storeMillis
        let ids = rows.values.filter { $0.state.isTerminal && $0.updatedAt.storeMillis < cutoff }
            .sorted { (sequence[$0.id] ?? 0) < (sequence[$1.id] ?? 0) }.prefix(max(0, limit)).map(\.id)
        for id in ids {
            rows[id] = nil
            sequence[id] = nil
        }
        return ids.count
    }
}

extension InMemoryOutboxRepository {
    /// See `OutboxRepository.pendingByTopic`.
    public func pendingByTopic() -> [OutboxTopicDepth] {
        var byTopic: [String: OutboxTopicDepth] = [:]
        for row in rows.values where row.state == .queued || row.state == .inFlight {
            var entry = byTopic[row.topic] ?? OutboxTopicDepth(topic: row.topic, queued: 0, inFlight: 0, oldestEnqueuedAt: row.createdAt)
            if row.state == .queued { entry.queued += 1 } else { entry.inFlight += 1 }
            entry.oldestEnqueuedAt = min(entry.oldestEnqueuedAt, row.createdAt)
            byTopic[row.topic] = entry
        }
        return byTopic.values.sorted { $0.topic < $1.topic }
    }
}
