import PushIO
import PushSync

/// A counting semaphore for async callers: `acquire` waits while every permit is taken.
final class SendPermits: Sendable {
    private struct State {
        var available: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
    }

    private let state: PThreadLock<State>

    init(_ count: Int) { state = PThreadLock(State(available: max(1, count))) }

    /// Takes a permit, waiting for one if needed; false when the task was cancelled while waiting.
    func acquire() async -> Bool {
        let immediate = state.withLock { state -> Bool in
            if state.available > 0 {
                state.available -= 1
                return true
            }
            return false
        }
        if immediate { return true }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let granted = state.withLock { state -> Bool in
                    if state.available > 0 {
                        state.available -= 1
                        return true
                    }
                    state.waiters.append((id, continuation))
                    return false
                }
                if granted { continuation.resume(returning: true) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// Takes `count` permits: at once as many as are free, then one by one as they come back. Returns how
    /// many were taken: `count`, or fewer when the task was cancelled while waiting (give those back).
    func acquire(count: Int) async -> Int {
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

    /// Returns `count` permits.
    func release(count: Int) {
        guard count > 0 else { return }
        let woken = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            let wake = min(count, state.waiters.count)
            let woken = state.waiters.prefix(wake).map(\.continuation)
            state.waiters.removeFirst(wake)
            state.available += count - wake
            return woken
        }
        for waiter in woken { waiter.resume(returning: true) }
    }

    /// Returns a permit, waking the oldest waiter.
    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst().continuation }
            state.available += 1
            return nil
        }
        waiter?.resume(returning: true)
    }

    /// Permits taken right now (pending sends).
    func inUse(of total: Int) -> Int { state.withLock { total - $0.available } }
}
