import APNSCore
import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("OutboxWriter")
struct OutboxWriterTests {
    /// While the first round is being written, 200 callers queue; the writer must write them as one round.
    /// Without group commit each caller would get its own transaction: 201 commits instead of 2.
    @Test(arguments: StoreKind.allCases)
    func callersQueuedDuringACommitShareTheNextOne(kind: StoreKind) async throws {
        let outbox = HeldOutbox(try await kind.make().outbox)
        let writer = OutboxWriter(outbox: outbox)
        let first = Task { try await writer.enqueue([outboxItem("first")]) }
        try await awaitEvent("the first enqueue to be held") { await outbox.waitUntilHeld() }
        let rest = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<200 { group.addTask { try await writer.enqueue([outboxItem("w\(n)", token: n)]) } }
                try await group.waitForAll()
            }
        }
        try await awaitEvent("200 callers queued behind the held round") { await writer.waitUntilQueued(200) }
        await outbox.release()
        try await awaitEvent("the first round to commit") { try await first.value }
        try await awaitEvent("the 200 queued enqueues to commit") { try await rest.value }
        #expect(await writer.commits == 2)
        #expect(try await outbox.depth() == 201)
    }

    /// A round holding one bad request fails as a whole, then each of its requests is retried alone: only
    /// the bad one fails, and the commits are the two rounds plus one per request of the failed round.
    @Test(arguments: StoreKind.allCases)
    func aBadRequestFailsAloneInItsRound(kind: StoreKind) async throws {
        let base = try await kind.make().outbox
        try await base.enqueue([outboxItem("taken")])
        let outbox = HeldOutbox(base)
        let writer = OutboxWriter(outbox: outbox)
        let first = Task { try await writer.enqueue([outboxItem("first")]) }
        try await awaitEvent("the first enqueue to be held") { await outbox.waitUntilHeld() }
        let failures = Task {
            await withTaskGroup(of: Bool.self) { group in
                for n in 0..<199 {
                    group.addTask { (try? await writer.enqueue([outboxItem("w\(n)", token: n)])) == nil }
                }
                group.addTask { (try? await writer.enqueue([outboxItem("taken")])) == nil }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        try await awaitEvent("200 callers queued behind the held round") { await writer.waitUntilQueued(200) }
        await outbox.release()
        try await first.value
        #expect(await failures.value == 1)
        #expect(await writer.commits == 1 + 1 + 200)
        #expect(try await outbox.depth() == 201)
    }

    @Test func invalidRowsFailBeforeQueueing() async throws {
        let writer = OutboxWriter(outbox: InMemoryOutboxRepository())
        var bad = outboxItem("x")
        bad.environment = .custom(host: "staging.example", port: 443)
        await #expect(throws: PushStoreError.self) { try await writer.enqueue([bad]) }
        #expect(await writer.commits == 0)
    }
}

/// A real outbox whose first `enqueue` through it waits until `release()`: the writer's first round then
/// stays "being written" for as long as the test needs. Everything else goes straight through.
actor HeldOutbox: ForwardingOutboxRepository {
    let base: any OutboxRepository
    private var state = Gate.idle
    private var holdWatchers: [CheckedContinuation<Void, Never>] = []

    private enum Gate {
        case idle
        case holding(CheckedContinuation<Void, Never>)
        case released
    }

    init(_ base: any OutboxRepository) {
        self.base = base
    }

    /// Returns once the first enqueue is being held.
    func waitUntilHeld() async {
        if case .holding = state { return }
        await withCheckedContinuation { holdWatchers.append($0) }
    }

    /// Lets the held enqueue (and every later one) through.
    func release() {
        if case .holding(let continuation) = state { continuation.resume() }
        state = .released
    }

    func enqueue(_ items: [OutboxItem]) async throws {
        if case .idle = state {
            await withCheckedContinuation { continuation in
                state = .holding(continuation)
                for watcher in holdWatchers { watcher.resume() }
                holdWatchers.removeAll()
            }
        }
        try await base.enqueue(items)
    }
}
