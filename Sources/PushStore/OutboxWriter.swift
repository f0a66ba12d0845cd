/// Group commit for enqueues: many tasks each enqueueing a few rows share one transaction per round.
///
/// While one round is being written, new requests wait and go together in the next round, so the
/// number of commits follows the store's speed, not the number of callers; no timers are involved.
/// If a round fails, its requests are retried one by one so only the bad request sees the error; unless the
/// store was unavailable, when the round may have committed and every request of it gets the error.
public actor OutboxWriter {
    private typealias Request = (items: [OutboxItem], continuation: CheckedContinuation<Void, any Error>)

    private let outbox: any OutboxRepository
    private var waiting: [Request] = []
    private var draining = false
    /// Transactions written so far (rounds plus one-by-one retries).
    public private(set) var commits = 0

    /// A writer in front of `outbox`.
    public init(outbox: any OutboxRepository) {
        self.outbox = outbox
    }

    /// Enqueues `items` (all or none), sharing the transaction with concurrent callers; returns once committed.
    public func enqueue(_ items: [OutboxItem]) async throws {
        for item in items { try item.validate() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            waiting.append((items, continuation))
            resumeQueueWatchers()
            if !draining {
                draining = true
                Task { await self.drain() }
            }
        }
    }

    private var queueWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Returns once `count` requests wait for the next round (tests use it to know a round will be shared).
    package func waitUntilQueued(_ count: Int) async {
        guard waiting.count < count else { return }
        await withCheckedContinuation { queueWatchers.append((count, $0)) }
    }

    private func resumeQueueWatchers() {
        for watcher in queueWatchers where watcher.count <= waiting.count { watcher.continuation.resume() }
        queueWatchers.removeAll { $0.count <= waiting.count }
    }

    private func drain() async {
        while !waiting.isEmpty {
            let round = waiting
            waiting = []
            commits += 1
            do {
                try await outbox.enqueue(round.flatMap(\.items))
                for request in round { request.continuation.resume() }
            } catch PushStoreError.unavailable(let reason) {
                // The round's outcome is unknown (its commit may have happened): sending its rows again could
                // store them twice. Every request of it gets the error (503: the client retries, with its
                // Idempotency-Key if it has one).
                for request in round { request.continuation.resume(throwing: PushStoreError.unavailable(reason)) }
            } catch {
                for request in round {
                    commits += 1
                    do {
                        try await outbox.enqueue(request.items)
                        request.continuation.resume()
                    } catch {
                        request.continuation.resume(throwing: error)
                    }
                }
            }
        }
        draining = false
    }
}
