import APNSCore
import Foundation
import PushStore
import PushStoreSQL
import PushSync
import TestSupport
import Testing

@testable import PushService

/// The real PostgreSQL outbox, with its writes of outcomes and lease renewals refused while `refusing`
/// (as a full disk refuses them): everything else passes through.
struct RefusingOutbox: ForwardingOutboxRepository {
    let base: any OutboxRepository
    let refusing: PThreadLock<Bool>

    func refuse() throws {
        if refusing.withLock({ $0 }) { throw PushStoreError.storageFull("refused by the test") }
    }
    func complete(_ results: [OutboxCompletion], now: Date) async throws -> [String: OutboxState] {
        try refuse()
        return try await base.complete(results, now: now)
    }
    func renewLeases(_ holds: [OutboxHold], now: Date) async throws -> Set<String> {
        try refuse()
        return try await base.renewLeases(holds, now: now)
    }
}

@Suite("outcomes and lease renewals that fail to commit")
struct OutcomeRetryTests {
    /// Two instances on one database (a's worker writes through a store that refuses writes while
    /// `refusing` holds), on the callers' clocks: the tests step time by hand.
    static func fixture(refusing initially: Bool) async throws -> (
        a: PushRepositories, b: PushRepositories, refusing: PThreadLock<Bool>, logs: LineWaiter, sender: RecordingSender,
        metrics: ServiceMetrics, worker: OutboxWorker
    ) {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let a = try await PushRepositories.postgres(url: url, poolSize: 2, instanceID: "a", lease: .seconds(10), clock: .caller)
        let b = try await PushRepositories.postgres(url: url, poolSize: 2, instanceID: "b", lease: .seconds(10), clock: .caller)
        let refusing = PThreadLock(initially)
        let logs = LineWaiter()
        let sender = RecordingSender()
        let metrics = ServiceMetrics()
        let worker = OutboxWorker(
            outbox: RefusingOutbox(base: a.outbox, refusing: refusing), devices: a.devices,
            senders: PushSenders(production: sender, development: sender), metrics: metrics,
            logger: ServiceLogger(level: .info, sink: { logs.append($0) }), waiters: PushWaiters(), maxInFlight: 100, claimBatch: 100)
        return (a, b, refusing, logs, sender, metrics, worker)
    }

    @Test(
        "kept and retried: a refused renewal keeps the holds and renews them on the next try; refused outcomes are written once the store takes writes, under their claim"
    )
    func keptAndRetried() async throws {
        let (a, b, refusing, logs, sender, metrics, worker) = try await Self.fixture(refusing: false)
        let t0 = Date()
        func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
        try await a.outbox.enqueue(OutboxLeaseRenewalTests.items(["x", "y", "z"]))
        await worker.start(tick: .seconds(3_600), leaseRenewal: .seconds(3_600))
        try await sender.waitForSent(3)  // claimed, leases to about 10 s

        #expect(await worker.renewHeld(now: at(4)) == 0)
        refusing.withLock { $0 = true }
        #expect(await worker.renewHeld(now: at(8)) == 0)  // refused
        #expect(await worker.held.count == 3, "the holds are kept")
        #expect(await worker.leaseRenewalFailures == 1)
        refusing.withLock { $0 = false }
        #expect(await worker.renewHeld(now: at(9)) == 3)  // leases to 19 s
        #expect(try await b.outbox.claim(limit: 10, now: at(12)).isEmpty)

        // APNs accepts all three while the store refuses writes: the outcomes are kept, tried again.
        refusing.withLock { $0 = true }
        sender.answerAll()
        #expect(await logs.waitFor { $0.contains { $0.contains("outbox.complete_failed") } })
        // Their rows are held again, so their leases keep being renewed once renewals are taken.
        #expect(await worker.held.count == 3)
        refusing.withLock { $0 = false }
        #expect(await worker.renewHeld(now: at(15)) == 3)  // leases to 25 s
        #expect(try await b.outbox.claim(limit: 10, now: at(20)).isEmpty)
        await worker.stop(deadline: .seconds(30))
        for id in ["x", "y", "z"] { #expect(try await a.outbox.item(id: id)?.state == .accepted) }
        let text = metrics.prometheusText(outboxCounts: [:], extra: "")
        #expect(text.contains("outbox_stale_completions_total 0\n"))
        // Each write of outcomes is timed, the refused ones too: at least one refused and the one that committed.
        let writes = text.split(separator: "\n").first { $0.hasPrefix("push_outbox_complete_seconds_count ") }
        #expect((writes.flatMap { Int($0.split(separator: " ")[1]) } ?? 0) >= 2)
    }

    @Test("an outcome written late, after another instance claimed the row again, leaves that newer claim alone")
    func lateOutcomeIsFenced() async throws {
        // b takes the row over by stepping its clock past a's lease.
        let (a, b, refusing, logs, sender, metrics, worker) = try await Self.fixture(refusing: true)
        try await a.outbox.enqueue(OutboxLeaseRenewalTests.items(["p", "q"]))
        await worker.start(tick: .seconds(3_600), leaseRenewal: .seconds(3_600))
        try await sender.waitForSent(2)
        sender.answerAll()
        #expect(await logs.waitFor { $0.contains { $0.contains("outbox.complete_failed") } })
        // a's leases run out (no renewal is taken) and b claims both rows again (attempt 2).
        let taken = try await b.outbox.claim(limit: 10, now: Date().addingTimeInterval(60))
        #expect(Set(taken.map(\.id)) == ["p", "q"])
        refusing.withLock { $0 = false }
        await worker.stop(deadline: .seconds(30))
        #expect(metrics.prometheusText(outboxCounts: [:], extra: "").contains("outbox_stale_completions_total 2\n"))
        for id in ["p", "q"] {
            let row = try await a.outbox.item(id: id)
            #expect(row?.state == .inFlight, "b's claim decides")
            #expect(row?.attempts == 2)
        }
    }
}
