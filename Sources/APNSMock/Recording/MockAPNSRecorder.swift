import APNSCore
import PushSync

/// Records and counters of one server, plus the waiters for them. Thread-safe: one `PThreadLock`;
/// continuations are resumed after the lock is released.
final class MockAPNSRecorder: Sendable {
    private struct AcceptWaiter {
        let id: Int
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct RecordWaiter {
        let id: Int
        let filter: MockAPNSRecordFilter
        var remaining: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var records: [MockAPNSRecord] = []
        var counters = MockAPNSCounters()
        var abortedConnections: Set<Int> = []
        var resets: [MockAPNSReset] = []
        var unclaimedRejections: [MockAPNSRecord] = []
        var rejectionWaiters: [CheckedContinuation<MockAPNSRecord, Never>] = []
        var acceptWaiters: [AcceptWaiter] = []
        var recordWaiters: [RecordWaiter] = []
        var cancelledWaiters: Set<Int> = []
        var nextWaiterID = 0

        /// Counts `record` for the record waiters it matches; returns those that now have enough.
        mutating func takeSatisfiedRecordWaiters(after record: MockAPNSRecord) -> [CheckedContinuation<Bool, Never>] {
            guard !recordWaiters.isEmpty else { return [] }
            var ready: [CheckedContinuation<Bool, Never>] = []
            for index in recordWaiters.indices where recordWaiters[index].filter.matches(record) {
                recordWaiters[index].remaining -= 1
                if recordWaiters[index].remaining <= 0 { ready.append(recordWaiters[index].continuation) }
            }
            if !ready.isEmpty { recordWaiters.removeAll { $0.remaining <= 0 } }
            return ready
        }

        mutating func takeSatisfiedAcceptWaiters() -> [CheckedContinuation<Void, Never>] {
            guard !acceptWaiters.isEmpty else { return [] }
            let accepted = counters.accepted
            let ready = acceptWaiters.filter { $0.count <= accepted }
            guard !ready.isEmpty else { return [] }
            acceptWaiters.removeAll { $0.count <= accepted }
            return ready.map(\.continuation)
        }
    }

    private let state = PThreadLock(State())
    private let maxRecords: Int?

    /// A recorder keeping at most `maxRecords` records and unclaimed rejections (nil: all).
    init(maxRecords: Int? = nil) {
        self.maxRecords = maxRecords.map { max(1, $0) }
    }

    /// Stores a decided notification and wakes whoever waits for it.
    func record(_ record: MockAPNSRecord) {
        typealias Woken = (
            accepts: [CheckedContinuation<Void, Never>], rejection: CheckedContinuation<MockAPNSRecord, Never>?,
            records: [CheckedContinuation<Bool, Never>]
        )
        let (accepts, rejectionWaiter, recordWaiters) = state.withLock { state -> Woken in
            state.records.append(record)
            let recordWaiters = state.takeSatisfiedRecordWaiters(after: record)
            if let limit = maxRecords {
                // Trim in chunks so dropping the oldest stays amortised O(1) per record.
                if state.records.count > limit + limit / 4 + 1 { state.records.removeFirst(state.records.count - limit) }
                if state.unclaimedRejections.count > limit + limit / 4 + 1 {
                    state.unclaimedRejections.removeFirst(state.unclaimedRejections.count - limit)
                }
            }
            if let rejection = record.rejection {
                state.counters.rejected += 1
                state.counters.rejectedByReason[rejection.reason, default: 0] += 1
                if state.rejectionWaiters.isEmpty {
                    state.unclaimedRejections.append(record)
                    return ([], nil, recordWaiters)
                }
                return ([], state.rejectionWaiters.removeFirst(), recordWaiters)
            }
            state.counters.accepted += 1
            return (state.takeSatisfiedAcceptWaiters(), nil, recordWaiters)
        }
        for waiter in recordWaiters { waiter.resume(returning: true) }
        rejectionWaiter?.resume(returning: record)
        for waiter in accepts { waiter.resume() }
    }

    /// Counts one request accepted on the fast path (no record).
    func countFastAccept(concurrentStreams: Int) {
        let accepts = state.withLock { state in
            state.counters.streams += 1
            state.counters.accepted += 1
            if concurrentStreams > state.counters.maxObservedConcurrentStreams {
                state.counters.maxObservedConcurrentStreams = concurrentStreams
            }
            return state.takeSatisfiedAcceptWaiters()
        }
        for waiter in accepts { waiter.resume() }
    }

    /// Counts one request received whole.
    func countStream(concurrentStreams: Int) {
        state.withLock { state in
            state.counters.streams += 1
            if concurrentStreams > state.counters.maxObservedConcurrentStreams {
                state.counters.maxObservedConcurrentStreams = concurrentStreams
            }
        }
    }

    /// Counts a new connection and returns its id (1, 2, …; ids keep growing across `reset()`).
    func countConnectionOpened() -> Int {
        state.withLock { state in
            state.counters.connections += 1
            state.counters.openConnections += 1
            return state.counters.connections
        }
    }

    /// Counts a closed connection.
    func countConnectionClosed() {
        state.withLock { $0.counters.openConnections = max(0, $0.counters.openConnections - 1) }
    }

    /// Counts GOAWAY frames sent.
    func countGoAways(_ count: Int = 1) {
        state.withLock { $0.counters.goAwaysSent += count }
    }

    /// Counts a TCP reset and keeps its record (at most `maxRecords` of them, the newest).
    func countAbort(_ reset: MockAPNSReset) {
        state.withLock {
            $0.counters.aborts += 1
            $0.abortedConnections.insert(reset.connectionID)
            $0.resets.append(reset)
            if let limit = maxRecords, $0.resets.count > limit { $0.resets.removeFirst($0.resets.count - limit) }
        }
    }

    /// The resets since start or `reset()`, oldest first.
    var resets: [MockAPNSReset] {
        state.withLock { $0.resets }
    }

    /// The connections reset so far.
    var abortedConnections: Set<Int> {
        state.withLock { $0.abortedConnections }
    }

    var counters: MockAPNSCounters {
        state.withLock { $0.counters }
    }

    /// The newest `maxRecords` records (all without a limit). Storage trims in chunks, so it may hold a few
    /// more for a while; those are never shown.
    var records: [MockAPNSRecord] {
        let kept = state.withLock { $0.records }
        guard let limit = maxRecords, kept.count > limit else { return kept }
        return Array(kept.suffix(limit))
    }

    /// Forgets records, resets, unclaimed rejections and counters (open connections stay counted); waiters keep waiting.
    func reset() {
        state.withLock { state in
            let open = state.counters.openConnections
            let connections = state.counters.connections
            state.records.removeAll()
            state.resets.removeAll()
            state.unclaimedRejections.removeAll()
            state.counters = MockAPNSCounters()
            state.counters.openConnections = open
            state.counters.connections = connections
        }
    }

    /// Returns once `accepted >= count`, or when the waiting task is cancelled.
    func waitForAccepted(count: Int) async {
        await wait(
            cancelled: (),
            take: { state, id in state.acceptWaiters.firstIndex { $0.id == id }.map { state.acceptWaiters.remove(at: $0).continuation } },
            register: { state, id, continuation in
                if state.counters.accepted >= count { return () }
                state.acceptWaiters.append(AcceptWaiter(id: id, count: count, continuation: continuation))
                return nil
            })
    }

    /// Returns true once `count` records matching `filter` exist (counting those kept now and those to
    /// come), false when the waiting task is cancelled first.
    func waitForRecords(count: Int, matching filter: MockAPNSRecordFilter) async -> Bool {
        let maxRecords = self.maxRecords
        return await wait(
            cancelled: false,
            take: { state, id in state.recordWaiters.firstIndex { $0.id == id }.map { state.recordWaiters.remove(at: $0).continuation } },
            register: { state, id, continuation in
                let have = state.records.suffix(maxRecords ?? .max).reduce(0) { $0 + (filter.matches($1) ? 1 : 0) }
                if have >= count { return true }
                state.recordWaiters.append(RecordWaiter(id: id, filter: filter, remaining: count - have, continuation: continuation))
                return nil
            })
    }

    /// Waits under a new waiter id: `register` answers at once or stores the continuation (returning nil)
    /// for a later event to resume. A cancellation resumes the waiter `take` removes with `cancelled`; one
    /// that comes before `register` ran marks the id, so the registration answers `cancelled` at once.
    private func wait<Answer: Sendable>(
        cancelled: Answer,
        take: @escaping @Sendable (inout State, Int) -> CheckedContinuation<Answer, Never>?,
        register: (inout State, Int, CheckedContinuation<Answer, Never>) -> Answer?
    ) async -> Answer {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Answer, Never>) in
                let answer = state.withLock { state -> Answer? in
                    if state.cancelledWaiters.remove(id) != nil { return cancelled }
                    return register(&state, id, continuation)
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Answer, Never>? in
                if let waiter = take(&state, id) { return waiter }
                state.cancelledWaiters.insert(id)
                return nil
            }
            waiter?.resume(returning: cancelled)
        }
    }

    /// The oldest rejection not yet returned by an earlier call, waiting for one if there is none.
    func nextRejection() async -> MockAPNSRecord {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> MockAPNSRecord? in
                if let limit = maxRecords, state.unclaimedRejections.count > limit {
                    state.unclaimedRejections.removeFirst(state.unclaimedRejections.count - limit)
                }
                if !state.unclaimedRejections.isEmpty { return state.unclaimedRejections.removeFirst() }
                state.rejectionWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
