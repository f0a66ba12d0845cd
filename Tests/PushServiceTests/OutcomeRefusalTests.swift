import APNSCore
import Foundation
import PushStore
import PushStoreSQL
import PushSync
import TestSupport
import Testing

@testable import PushService

/// A sender that answers every notification at once: rejected (BadDeviceToken) when its collapse id (derived
/// from the row id) is `rejecting`, accepted otherwise.
final class AnsweringSender: APNSSender {
    let rejecting: String
    private let count = PThreadLock(0)

    init(rejecting: String) { self.rejecting = rejecting }

    var sent: Int { count.withLock { $0 } }

    func send(_ notification: APNSNotification) async throws -> APNSOutcome {
        .accepted(apnsID: APNSID.generate(), uniqueID: nil)
    }

    func send(batch notifications: [APNSNotification], deliver: @escaping @Sendable ([APNSBatchResult]) -> Void) async {
        count.withLock { $0 += notifications.count }
        deliver(
            notifications.enumerated().map { index, notification in
                APNSBatchResult(
                    index: index,
                    delivery: notification.collapseID == rejecting
                        ? .rejected(APNSRejection(.badDeviceToken)) : .accepted(apnsID: APNSID.generate(), uniqueID: nil))
            })
    }

    func shutdown(deadline: Duration) async {}
}

@Suite("outcomes the store refuses for good")
struct OutcomeRefusalTests {
    @Test(
        "one row's outcome refused by a constraint: the other rows' outcomes commit, the row is held, counted, logged with its id, never sent again, and written once the store takes it"
    )
    func oneRowRefused() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let url = try await cluster.createDatabase()
        let name = String(url.split(separator: "/").last!.split(separator: "?").first!)
        let store = try await PushRepositories.postgres(url: url, poolSize: 2, instanceID: "a", lease: .seconds(10))
        // The rejection writes an outcome row; the store refuses that one row (SQLSTATE 23514).
        try await cluster.psql("ALTER TABLE outbox_state ADD CONSTRAINT refuse_bad CHECK (id <> 'bad')", database: name)
        let logs = LineWaiter()
        let metrics = ServiceMetrics()
        let sender = AnsweringSender(rejecting: "bad")
        let worker = OutboxWorker(
            outbox: store.outbox, devices: store.devices, senders: PushSenders(production: sender, development: sender),
            metrics: metrics, logger: ServiceLogger(level: .info, sink: { logs.append($0) }), waiters: PushWaiters(),
            maxInFlight: 100, claimBatch: 100, unwritableRetryDelay: .milliseconds(300))
        let ids = (0..<9).map { "ok\($0)" } + ["bad"] + (9..<20).map { "ok\($0)" }
        try await store.outbox.enqueue(OutboxLeaseRenewalTests.items(ids))
        await worker.start(tick: .seconds(3_600), leaseRenewal: .seconds(3_600))
        worker.wake()

        #expect(await logs.waitFor { $0.contains { $0.contains("outbox.complete_refused") && $0.contains("bad") && $0.contains("23514") } })
        _ = try await poll("the other rows' outcomes committed") {
            try await store.outbox.counts()[.accepted] == 20 ? true : nil
        }
        #expect(try await store.outbox.item(id: "bad")?.state == .inFlight)
        #expect(await worker.held["bad"] != nil, "held: its lease is renewed")
        #expect(await worker.inFlight == 1)
        var text = metrics.prometheusText(outboxCounts: [:], extra: "")
        #expect(text.contains("push_outbox_outcomes_unwritable 1"))
        #expect(!text.contains("push_outbox_complete_failures_total{kind=\"permanent\"} 0"))

        // Once the store takes it, the kept outcome is written at the slow back-off; nothing was sent twice.
        try await cluster.psql("ALTER TABLE outbox_state DROP CONSTRAINT refuse_bad", database: name)
        _ = try await poll("the refused outcome written") {
            try await store.outbox.item(id: "bad")?.state == .rejected ? true : nil
        }
        #expect(sender.sent == 21)
        #expect(await worker.inFlight == 0)
        text = metrics.prometheusText(outboxCounts: [:], extra: "")
        #expect(text.contains("push_outbox_outcomes_unwritable 0"))
        await worker.stop(deadline: .seconds(10))
    }
}
