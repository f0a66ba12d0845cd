import APNSCore
import Foundation
import PushStore
import TestSupport
import Testing

@testable import PushService

/// One result per notification: what the sender hands over for a notification (`APNSDeliveryResult`)
/// is what the outbox worker gives the store's `complete`, field for field, for every kind of outcome.
@Suite("Delivery results reach the outbox as the sender gave them")
struct DeliveryResultPathTests {
    static let topic = "com.example.sniffmeet"

    /// A sender that answers each notification by its token, from a table.
    struct ScriptedSender: APNSSender {
        var answers: [String: APNSDeliveryResult]

        func send(_ notification: APNSNotification) async throws -> APNSOutcome {
            .accepted(apnsID: notification.apnsID ?? "", uniqueID: nil)
        }

        func send(batch notifications: [APNSNotification], deliver: @escaping @Sendable ([APNSBatchResult]) -> Void) async {
            deliver(
                notifications.enumerated().map { index, notification in
                    APNSBatchResult(index: index, delivery: answers[notification.token.hex] ?? .failed(APNSTransportError(.notSent, "?")))
                })
        }
    }

    /// An in-memory outbox that keeps every completion it is given, in order.
    actor CapturingOutbox: OutboxRepository {
        let inner = InMemoryOutboxRepository()
        private(set) var completions: [OutboxCompletion] = []
        private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        func enqueue(_ items: [OutboxItem]) async throws { try await inner.enqueue(items) }
        func claim(limit: Int, now: Date) async throws -> OutboxClaim { await inner.claim(limit: limit, now: now) }
        func complete(_ results: [OutboxCompletion], now: Date) async throws -> [String: OutboxState] {
            completions += results
            let count = completions.count
            for waiter in waiters where waiter.count <= count { waiter.continuation.resume() }
            waiters.removeAll { $0.count <= count }
            return await inner.complete(results, now: now)
        }
        func recoverInFlight() async throws -> Int { await inner.recoverInFlight() }
        func item(id: String) async throws -> OutboxItem? { await inner.item(id: id) }
        func items(pushID: String) async throws -> [OutboxItem] { await inner.items(pushID: pushID) }
        func counts() async throws -> [OutboxState: Int] { await inner.counts() }
        func depth() async throws -> Int { await inner.depth() }
        func oldestPendingEnqueuedAt() async throws -> Date? { await inner.oldestPendingEnqueuedAt() }
        func pendingByTopic() async throws -> [OutboxTopicDepth] { await inner.pendingByTopic() }
        func purge(olderThan date: Date, limit: Int) async throws -> Int { await inner.purge(olderThan: date, limit: limit) }

        /// Returns once `count` completions came in.
        func waitForCompletions(_ count: Int) async {
            if completions.count >= count { return }
            await withCheckedContinuation { waiters.append((count, $0)) }
        }
    }

    static func token(_ n: Int) -> DeviceToken { DeviceToken(bytes: [UInt8](repeating: UInt8(n), count: 32)) }

    @Test("accepted with its apns-id, rejected with status, reason and timestamp, and each transport failure arrive unchanged")
    func everyKindArrivesUnchanged() async throws {
        let ids = (1...6).map { _ in APNSID.random() }
        let gone = Date(timeIntervalSince1970: 1_790_000_000.250)
        let expected: [APNSDeliveryResult] = [
            .accepted(apnsID: ids[0].rawValue, uniqueID: "0a1b2c3d-0000-4000-8000-0000000000aa"),
            .rejected(APNSRejection(status: 410, reason: .unregistered, timestamp: gone, apnsID: ids[1].rawValue)),
            .rejected(APNSRejection(status: 429, reason: .tooManyRequests, apnsID: ids[2].rawValue)),
            .failed(APNSTransportError(.notSent, "above the GOAWAY's last stream")),
            .failed(APNSTransportError(.outcomeUnknown, "connection reset with the request on the wire")),
            .failed(APNSTransportError(.timeout, "no answer within 5 s")),
        ]
        let answers = Dictionary(uniqueKeysWithValues: expected.indices.map { (Self.token($0 + 1).hex, expected[$0]) })
        let sender = ScriptedSender(answers: answers)
        let outbox = CapturingOutbox()
        let worker = OutboxWorker(
            outbox: outbox, devices: InMemoryDeviceRepository(), senders: PushSenders(production: sender, development: sender),
            metrics: ServiceMetrics(), logger: .silent, waiters: PushWaiters(), maxInFlight: 100, claimBatch: 100)
        let rows = expected.indices.map { index in
            OutboxItem(
                id: "row-\(index)", pushID: "push", token: Self.token(index + 1), topic: Self.topic, pushType: .alert,
                payload: Array(#"{"aps":{}}"#.utf8), environment: .production, apnsID: ids[index], now: Date())
        }
        try await outbox.enqueue(rows)
        await worker.start(tick: .seconds(3_600))
        try await awaitEvent("\(rows.count) completions") { await outbox.waitForCompletions(rows.count) }
        await worker.stop(deadline: .seconds(10))

        let completions = await outbox.completions
        let byID = Dictionary(uniqueKeysWithValues: completions.map { ($0.id, $0) })
        for (index, result) in expected.enumerated() {
            let completion = try #require(byID["row-\(index)"])
            #expect(completion.result == result, "row-\(index)")
            #expect(completion.attempt == 1)
        }
        #expect(try await outbox.item(id: "row-0")?.state == .accepted)
        #expect(try await outbox.item(id: "row-1")?.state == .rejected)
        #expect(try await outbox.item(id: "row-1")?.lastReason?.rejectionReason == .unregistered)
        #expect(try await outbox.item(id: "row-5")?.lastReason == .transportError)
    }
}
