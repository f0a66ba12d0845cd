import APNS
import APNSCore
import PushService
import PushSync
import TestSupport

/// A sender that holds every batch until `answerAll` accepts it, and counts shutdowns; `waitForShutdown`
/// returns once it was shut down (no polling).
final class RecordingSender: APNSSender {
    private struct State {
        var held: [(count: Int, deliver: @Sendable ([APNSBatchResult]) -> Void)] = []
        var sent = 0
        var shutdowns = 0
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        var sentWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = PThreadLock(State())

    var sent: Int { state.withLock { $0.sent } }
    var shutdowns: Int { state.withLock { $0.shutdowns } }

    func send(_ notification: APNSNotification) async throws -> APNSOutcome {
        state.withLock { $0.sent += 1 }
        return .accepted(apnsID: APNSID.generate(), uniqueID: nil)
    }

    func send(batch notifications: [APNSNotification], deliver: @escaping @Sendable ([APNSBatchResult]) -> Void) async {
        let ready = state.withLock { state in
            state.sent += notifications.count
            state.held.append((notifications.count, deliver))
            let sent = state.sent
            defer { state.sentWaiters.removeAll { $0.count <= sent } }
            return state.sentWaiters.filter { $0.count <= sent }.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once at least `count` notifications were handed over (no polling); throws
    /// `DeadlineExceeded` after a minute without them.
    func waitForSent(_ count: Int) async throws {
        try await awaitEvent("\(count) notifications handed to the sender") { [state] in
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    if state.sent >= count { return true }
                    state.sentWaiters.append((count, continuation))
                    return false
                }
                if done { continuation.resume() }
            }
        }
    }

    /// Accepts every held notification.
    func answerAll() {
        let held = state.withLock { state in
            defer { state.held = [] }
            return state.held
        }
        for (count, deliver) in held {
            deliver((0..<count).map { APNSBatchResult(index: $0, delivery: .accepted(apnsID: APNSID.generate(), uniqueID: nil)) })
        }
    }

    func shutdown(deadline: Duration) async {
        let waiters = state.withLock { state in
            state.shutdowns += 1
            defer { state.shutdownWaiters = [] }
            return state.shutdownWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the sender was shut down; throws `DeadlineExceeded` after a minute without it.
    func waitForShutdown() async throws {
        try await awaitEvent("the sender's shutdown") { [state] in
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    if state.shutdowns > 0 { return true }
                    state.shutdownWaiters.append(continuation)
                    return false
                }
                if done { continuation.resume() }
            }
        }
    }
}

/// Counts delivered results from any thread.
final class ResultCounter: Sendable {
    private let count = PThreadLock(0)

    func add(_ value: Int) { count.withLock { $0 += value } }
    var total: Int { count.withLock { $0 } }
}

enum APNSNotificationFixture {
    static func make() -> APNSNotification {
        APNSNotification(
            token: DeviceToken(bytes: [UInt8](repeating: 0xab, count: 32)), topic: "com.example.dogs",
            payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
    }
}
