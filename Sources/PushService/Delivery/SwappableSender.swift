public import APNSCore
import PushSync

/// A sender whose underlying sender (an APNs client) can be replaced while it runs, for credential
/// reloads: sends that start after `replace(with:)` go to the new one; the old one keeps its connections
/// until every send it took has its result, then it is shut down. Nothing in flight is dropped or failed.
public final class SwappableSender: PushSender {
    private struct Generation {
        var sender: any PushSender
        /// Notifications handed to it whose results have not come back yet.
        var pending = 0
        /// Replaced: shut it down once `pending` reaches 0.
        var retired = false
    }

    private struct State {
        var current = 0
        var generations: [Int: Generation] = [:]
        var next = 1
    }

    private let state: PThreadLock<State>
    /// Seconds a retired sender may take to finish what it still has once it is shut down.
    private let drainDeadline: Duration

    /// Starts with `sender`; a replaced sender gets `drainDeadline` seconds to close once it is idle.
    public init(_ sender: any PushSender, drainDeadline: Duration = .seconds(30)) {
        state = PThreadLock(State(current: 0, generations: [0: Generation(sender: sender)]))
        self.drainDeadline = drainDeadline
    }

    /// The sender new sends go to.
    public var current: any PushSender {
        state.withLock { $0.generations[$0.current]!.sender }
    }

    /// Senders replaced but still finishing their sends.
    public var draining: Int {
        state.withLock { $0.generations.values.filter(\.retired).count }
    }

    /// Makes `sender` the one new sends use; the previous one drains and is shut down when idle.
    public func replace(with sender: any PushSender) {
        let idle: (any PushSender)? = state.withLock { state in
            let old = state.current
            state.current = state.next
            state.generations[state.next] = Generation(sender: sender)
            state.next += 1
            state.generations[old]?.retired = true
            guard let generation = state.generations[old], generation.pending == 0 else { return nil }
            state.generations[old] = nil
            return generation.sender
        }
        if let idle { retire(idle) }
    }

    /// Sends through the current sender.
    public func send(_ notification: APNSNotification) async throws -> APNSOutcome {
        let (id, sender) = acquire(1)
        defer { release(id, 1) }
        return try await sender.send(notification)
    }

    /// Sends a batch through the current sender, counting its results so a reload lets it finish.
    public func send(batch notifications: [APNSNotification], deliver: @escaping @Sendable ([PushSendResult]) -> Void) async {
        guard !notifications.isEmpty else { return }
        let (id, sender) = acquire(notifications.count)
        await sender.send(batch: notifications) { results in
            deliver(results)
            self.release(id, results.count)
        }
    }

    /// Sends broadcasts through the current sender, counting their results as for a batch.
    public func send(broadcasts: [APNSBroadcast], deliver: @escaping @Sendable ([PushSendResult]) -> Void) async {
        guard !broadcasts.isEmpty else { return }
        let (id, sender) = acquire(broadcasts.count)
        await sender.send(broadcasts: broadcasts) { results in
            deliver(results)
            self.release(id, results.count)
        }
    }

    /// Shuts down the current sender and any still draining.
    public func shutdown(deadline: Duration) async {
        let senders = state.withLock { state in
            let all = state.generations.values.map(\.sender)
            state.generations = state.generations.filter { $0.key == state.current }
            return all
        }
        await withTaskGroup(of: Void.self) { group in
            for sender in senders { group.addTask { await sender.shutdown(deadline: deadline) } }
        }
    }

    /// The current sender's connections.
    public func connectionState() async -> PushSenderConnections? {
        await current.connectionState()
    }

    private func acquire(_ count: Int) -> (Int, any PushSender) {
        state.withLock { state in
            state.generations[state.current]!.pending += count
            return (state.current, state.generations[state.current]!.sender)
        }
    }

    private func release(_ id: Int, _ count: Int) {
        let idle: (any PushSender)? = state.withLock { state in
            guard var generation = state.generations[id] else { return nil }
            generation.pending -= count
            if generation.retired, generation.pending <= 0 {
                state.generations[id] = nil
                return generation.sender
            }
            state.generations[id] = generation
            return nil
        }
        if let idle { retire(idle) }
    }

    private func retire(_ sender: any PushSender) {
        let deadline = drainDeadline
        Task { await sender.shutdown(deadline: deadline) }
    }
}
