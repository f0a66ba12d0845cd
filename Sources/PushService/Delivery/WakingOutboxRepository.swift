import Foundation
import PushStore

/// An `OutboxRepository` that wakes the outbox worker after every successful enqueue, so rows written by
/// anyone (the push API, the match service's notifier) are picked up at once, without polling.
struct WakingOutboxRepository: ForwardingOutboxRepository {
    let base: any OutboxRepository
    let wake: @Sendable () -> Void

    func enqueue(_ items: [OutboxItem]) async throws {
        try await base.enqueue(items)
        if !items.isEmpty { wake() }
    }
}
