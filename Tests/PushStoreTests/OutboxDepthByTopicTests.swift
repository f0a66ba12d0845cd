import APNSCore
import Foundation
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("OutboxRepository.pendingByTopic: depth and oldest pending row per topic, in every store")
struct OutboxDepthByTopicTests {
    /// Row `id` for `topic`, enqueued (and due) at `at(seconds)`.
    static func row(_ id: String, _ topic: String, _ seconds: Double, token n: Int) -> OutboxItem {
        var item = outboxItem(id, token: n, now: at(seconds))
        item.topic = topic
        return item
    }

    @Test(arguments: StoreKind.allCases)
    func queuedAndInFlightRowsPerTopicWithTheOldestPendingOne(kind: StoreKind) async throws {
        let outbox = try await kind.make().outbox
        #expect(try await outbox.pendingByTopic() == [])
        try await outbox.enqueue([Self.row("a1", "app.a", 0, token: 1), Self.row("a2", "app.a", 1, token: 2), Self.row("b1", "app.b", 2, token: 3)])
        try await outbox.enqueue([Self.row("c1", "app.c", 3, token: 4), Self.row("a3", "app.a", 4, token: 5)])
        try await outbox.enqueue([Self.row("d1", "app.a.voip", 5, token: 6)])

        // a1 is accepted (final: neither counted nor the oldest any more); a2 is refused with a retryable
        // status and queued again (its own state row on PostgreSQL).
        let first = try await outbox.claim(limit: 2, now: at(10))
        #expect(first.map(\.id) == ["a1", "a2"])
        try await outbox.complete(
            [
                OutboxCompletion(first.items[0], .accepted(apnsUniqueID: nil)),
                OutboxCompletion(first.items[1], .rejected(APNSRejection(status: 503, reason: "ServiceUnavailable", timestamp: nil))),
            ], now: at(11))
        // b1 stays in flight; c1 is accepted, so app.c has nothing pending.
        let second = try await outbox.claim(limit: 2, now: at(12))
        #expect(second.map(\.id) == ["b1", "c1"])
        try await outbox.complete([OutboxCompletion(second.items[1], .accepted(apnsUniqueID: nil))], now: at(13))

        let depth = try await outbox.pendingByTopic()
        #expect(
            depth == [
                OutboxTopicDepth(topic: "app.a", queued: 2, inFlight: 0, oldestEnqueuedAt: at(1)),
                OutboxTopicDepth(topic: "app.a.voip", queued: 1, inFlight: 0, oldestEnqueuedAt: at(5)),
                OutboxTopicDepth(topic: "app.b", queued: 0, inFlight: 1, oldestEnqueuedAt: at(2)),
            ])
        let pending = try await outbox.pendingCounts()
        #expect(depth.map(\.queued).reduce(0, +) == pending[.queued])
        #expect(depth.map(\.inFlight).reduce(0, +) == pending[.inFlight])
        #expect(depth.map(\.oldestEnqueuedAt).min() == (try await outbox.oldestPendingEnqueuedAt()))
    }
}
