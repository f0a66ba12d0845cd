import APNSCore
import Foundation
import PushStore
import PushStoreSQL
import PushSync
import TestSupport
import Testing

@testable import PushService

/// Holds every write of outcomes until `open`, counting those that came: `waitForEntered` returns once that
/// many writes are held or passed (no polling).
final class CompleteGate: Sendable {
    private struct State {
        var entered = 0
        var open = false
        var blocked: [CheckedContinuation<Void, Never>] = []
        var enteredWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = PThreadLock(State())

    var entered: Int { state.withLock { $0.entered } }

    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (proceed, ready) = state.withLock { state in
                state.entered += 1
                let entered = state.entered
                let ready = state.enteredWaiters.filter { $0.count <= entered }.map(\.continuation)
                state.enteredWaiters.removeAll { $0.count <= entered }
                if !state.open { state.blocked.append(continuation) }
                return (state.open, ready)
            }
            for waiter in ready { waiter.resume() }
            if proceed { continuation.resume() }
        }
    }

    func open() {
        let blocked = state.withLock { state in
            state.open = true
            defer { state.blocked = [] }
            return state.blocked
        }
        for continuation in blocked { continuation.resume() }
    }

    func waitForEntered(_ count: Int, within timeout: Duration) async throws {
        try await awaitEvent("\(count) writes of outcomes started", within: timeout) { [state] in
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    if state.entered >= count { return true }
                    state.enteredWaiters.append((count, continuation))
                    return false
                }
                if done { continuation.resume() }
            }
        }
    }
}

/// The real PostgreSQL outbox, its writes of outcomes held by a `CompleteGate`: everything else passes through.
struct GatedOutbox: ForwardingOutboxRepository {
    let base: any OutboxRepository
    let gate: CompleteGate
    func complete(_ results: [OutboxCompletion], now: Date) async throws -> [String: OutboxState] {
        await gate.pass()
        return try await base.complete(results, now: now)
    }
}

@Suite("outcomes answered while others commit")
struct OutcomeOverlapTests {
    @Test("a second batch's outcomes are written while the first batch's write is still committing, and stop waits for both")
    func secondWriteStartsWhileFirstCommits() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let store = try await PushRepositories.postgres(url: url, poolSize: 2, instanceID: "a", lease: .seconds(10))
        let gate = CompleteGate()
        let sender = RecordingSender()
        let worker = OutboxWorker(
            outbox: GatedOutbox(base: store.outbox, gate: gate), devices: store.devices,
            senders: PushSenders(production: sender, development: sender), metrics: ServiceMetrics(),
            logger: ServiceLogger(level: .info, sink: { _ in }), waiters: PushWaiters(), maxInFlight: 100, claimBatch: 100)
        await worker.start(tick: .seconds(3_600), leaseRenewal: .seconds(3_600))

        try await store.outbox.enqueue(OutboxLeaseRenewalTests.items(["first"]))
        worker.wake()
        try await sender.waitForSent(1)
        sender.answerAll()
        try await gate.waitForEntered(1, within: .seconds(30))  // held: the first batch is committing

        try await store.outbox.enqueue(OutboxLeaseRenewalTests.items(["second"]))
        worker.wake()
        try await sender.waitForSent(2)
        sender.answerAll()
        // Before, the second answer waited for the first commit: its write never started while that one was held.
        try await gate.waitForEntered(2, within: .seconds(10))

        let stopped = Task { await worker.stop(deadline: .seconds(30)) }
        gate.open()
        await stopped.value
        #expect(gate.entered == 2)
        for id in ["first", "second"] { #expect(try await store.outbox.item(id: id)?.state == .accepted) }
    }
}
