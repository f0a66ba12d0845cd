import PushSync
import TestSupport

/// Lines from a child process or a logger, and tasks waiting for a condition on them: each waiter is
/// resumed by the line that makes its condition true, not by polling.
final class LineWaiter: Sendable {
    private struct Waiter {
        var id: Int
        var predicate: @Sendable ([String]) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var lines: [String] = []
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = PThreadLock(State())

    /// Every line so far.
    var lines: [String] { state.withLock { $0.lines } }

    /// Adds a line and resumes the waiters whose condition now holds.
    func append(_ line: String) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.lines.append(line)
            var ready: [CheckedContinuation<Bool, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.predicate(state.lines) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Waits until `predicate` holds for the lines; false after `timeout` seconds (`awaitEvent`'s deadline, a
    /// guard against a hung test, not a way of waiting).
    func waitFor(timeout: Double = 60, _ predicate: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        let met = try? await awaitEvent("a line that makes the condition true", within: .seconds(timeout)) { [state] in
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    // Cancelled already (the deadline passed before this task got here): its handler found
                    // no waiter to resume, so none is added.
                    let now = state.withLock { state -> Bool? in
                        if predicate(state.lines) { return true }
                        if Task.isCancelled { return false }
                        state.waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
                        return nil
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> Waiter? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index)
                }
                waiter?.continuation.resume(returning: false)
            }
        }
        return met ?? false
    }
}
