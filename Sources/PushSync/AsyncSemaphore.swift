/// A counting semaphore for async callers: `acquire` waits, first come first served, while every permit
/// is taken; a task cancelled while waiting leaves the queue. The package's one async semaphore: the APNs
/// client's pending-request limit, the REST intake's turns and the match service's one-at-a-time gate.
///
/// Waiters queue in an array read from `head`, so admitting the oldest is O(1) (no `removeFirst`).
public final class AsyncSemaphore: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Bool, Never>?
    }

    private struct State {
        var available: Int
        var waiters: [Waiter] = []
        var head = 0
        var nextID: UInt64 = 0

        /// The oldest waiter still waiting, taken off the queue.
        mutating func popOldest() -> CheckedContinuation<Bool, Never>? {
            while head < waiters.count {
                defer { head += 1 }
                if let continuation = waiters[head].continuation { return continuation }
            }
            return nil
        }

        /// Drops the admitted prefix once it is most of the array.
        mutating func compact() {
            if head == waiters.count {
                waiters.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 64 && head * 2 > waiters.count {
                waiters.removeFirst(head)
                head = 0
            }
        }
    }

    private let state: PThreadLock<State>

    /// A semaphore with `permits` permits; 0 makes a signal: `acquire` waits for the first `release`.
    public init(permits: Int) {
        precondition(permits >= 0, "AsyncSemaphore needs 0 or more permits, not \(permits)")
        state = PThreadLock(State(available: permits))
    }

    /// Takes a permit, waiting for one if needed; false when the task was cancelled while waiting.
    public func acquire() async -> Bool {
        guard let id = takeOrTicket() else { return true }
        return await withTaskCancellationHandler {
            await wait(id)
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters[state.head...].firstIndex(where: { $0.id == id }) else { return nil }
                defer { state.waiters[index].continuation = nil }
                return state.waiters[index].continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// Takes a permit, waiting for one however long it takes, cancelled or not.
    public func acquireUninterruptibly() async {
        guard let id = takeOrTicket() else { return }
        _ = await wait(id)
    }

    /// Takes a free permit (nil), or a ticket to queue with.
    private func takeOrTicket() -> UInt64? {
        state.withLock { state in
            if state.available > 0 {
                state.available -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
    }

    /// Queues as `id` unless a permit came back meanwhile; true once a permit is held.
    private func wait(_ id: UInt64) async -> Bool {
        await withCheckedContinuation { continuation in
            let granted = state.withLock { state -> Bool in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(Waiter(id: id, continuation: continuation))
                return false
            }
            if granted { continuation.resume(returning: true) }
        }
    }

    /// Takes `count` permits: at once as many as are free, then one by one as they come back. Returns how
    /// many were taken: `count`, or fewer when the task was cancelled while waiting (give those back).
    public func acquire(count: Int) async -> Int {
        var taken = state.withLock { state -> Int in
            let now = min(count, state.available)
            state.available -= now
            return now
        }
        while taken < count {
            guard await acquire() else { break }
            taken += 1
        }
        return taken
    }

    /// Returns `count` permits (default one), handing them to the oldest waiters first.
    public func release(count: Int = 1) {
        guard count > 0 else { return }
        let woken = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            var woken: [CheckedContinuation<Bool, Never>] = []
            while woken.count < count, let next = state.popOldest() { woken.append(next) }
            state.available += count - woken.count
            state.compact()
            return woken
        }
        for waiter in woken { waiter.resume(returning: true) }
    }

    /// Runs `body` holding a permit (waiting for one first, even if the task is cancelled meanwhile).
    public func withPermit<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        await acquireUninterruptibly()
        defer { release() }
        return try await body()
    }

    /// Tasks queued for a permit right now (cancelled ones excluded).
    public var waitingCount: Int {
        state.withLock { state in state.waiters[state.head...].reduce(0) { $0 + ($1.continuation == nil ? 0 : 1) } }
    }

    /// Permits taken right now, out of `total`.
    public func inUse(of total: Int) -> Int { state.withLock { total - $0.available } }
}
