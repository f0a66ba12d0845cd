import APNSCore
import Foundation
import PushStore
import PushStoreSQL
import TestSupport
import Testing

@testable import PushService

/// The outbox worker renews the leases of the rows it is still sending, so another instance never takes
/// over a row a live instance holds, and counts the holds it found taken over.
@Suite("Outbox lease renewal")
struct OutboxLeaseRenewalTests {
    static func items(_ ids: [String]) -> [OutboxItem] {
        ids.map { id in
            OutboxItem(
                id: id, pushID: "push-1", token: DeviceToken(bytes: [UInt8](repeating: 0xab, count: 32)), topic: ServiceHarness.topic,
                pushType: .alert, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), environment: .production, now: Date())
        }
    }

    @Test("a live instance's held rows stay its own past the lease, and a takeover after a stall is counted")
    func renewalKeepsHeldRows() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let a = try await PushRepositories.postgres(url: url, poolSize: 2, instanceID: "a", lease: .seconds(10), clock: .caller)
        let b = try await PushRepositories.postgres(url: url, poolSize: 2, instanceID: "b", lease: .seconds(10), clock: .caller)
        let sender = RecordingSender()
        let metrics = ServiceMetrics()
        let worker = OutboxWorker(
            outbox: a.outbox, devices: a.devices, senders: PushSenders(production: sender, development: sender), metrics: metrics,
            logger: .silent, waiters: PushWaiters(), maxInFlight: 100, claimBatch: 100)
        let t0 = Date()
        func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
        try await a.outbox.enqueue(Self.items(["x", "y", "z"]))
        // Renewals only when the test asks (the timer's interval is an hour).
        await worker.start(tick: .seconds(3_600), leaseRenewal: .seconds(3_600))
        try await sender.waitForSent(3)  // claimed (leases to about 10 s) and held by the sender

        // Claims made since the last round are fresh: the first round leaves them; the next renews them.
        #expect(await worker.renewHeld(now: at(4)) == 0)
        #expect(await worker.renewHeld(now: at(8)) == 3)  // leases to 18 s
        // Without the renewal b would take them at 12 s.
        #expect(try await b.outbox.claim(limit: 10, now: at(12)).isEmpty)

        // Just renewed, they wait a round (a third of a lease) before the next renewal.
        #expect(await worker.renewHeld(now: at(12)) == 0)
        // a stalls past its renewed lease: b takes the rows over, and a's round after that finds them lost.
        let takenOver = try await b.outbox.claim(limit: 10, now: at(18.5))
        #expect(Set(takenOver.map(\.id)) == ["x", "y", "z"])
        #expect(await worker.renewHeld(now: at(19)) == 0)
        let text = metrics.prometheusText(outboxCounts: [:], extra: "")
        #expect(text.contains("outbox_lease_renewals_total 3\n"))
        #expect(text.contains("outbox_leases_lost_total 3\n"))
        #expect(await worker.held.isEmpty)

        // a's answers come in late: stale, so b's claim decides.
        sender.answerAll()
        await worker.stop(deadline: .seconds(30))
        #expect(metrics.prometheusText(outboxCounts: [:], extra: "").contains("outbox_stale_completions_total 3\n"))
        #expect(try await a.outbox.item(id: "x")?.state == .inFlight)
    }

    @Test("a store whose claims never lapse keeps no holds")
    func noHoldsWithoutLeases() async throws {
        let store = PushRepositories.inMemory()
        let sender = RecordingSender()
        let worker = OutboxWorker(
            outbox: store.outbox, devices: store.devices, senders: PushSenders(production: sender, development: sender),
            metrics: ServiceMetrics(), logger: .silent, waiters: PushWaiters(), maxInFlight: 100, claimBatch: 100)
        try await store.outbox.enqueue(Self.items(["m"]))
        await worker.start(tick: .seconds(3_600))
        try await sender.waitForSent(1)
        #expect(await worker.held.isEmpty)
        #expect(await worker.renewHeld(now: Date()) == 0)
        sender.answerAll()
        await worker.stop(deadline: .seconds(30))
        #expect(try await store.outbox.item(id: "m")?.state == .accepted)
    }
}
