public import APNSCore

/// A sender whose underlying sender (an APNs client) can be replaced while it runs, for credential
/// reloads: sends that start after `replace(with:)` go to the new one; the old one keeps its connections
/// until every send it took has its result, then it is shut down. Nothing in flight is dropped or failed.
public final class SwappableSender: APNSSender {
    private let generations: Generations<any APNSSender>

    /// Starts with `sender`; a replaced sender gets `drainDeadline` to close once it is idle.
    public init(_ sender: any APNSSender, drainDeadline: Duration = .seconds(30)) {
        generations = Generations(sender) { idle in
            Task { await idle.shutdown(deadline: drainDeadline) }
        }
    }

    /// The sender new sends go to.
    public var current: any APNSSender { generations.current }

    /// Senders replaced but still finishing their sends.
    public var draining: Int { generations.draining }

    /// Makes `sender` the one new sends use; the previous one drains and is shut down when idle.
    public func replace(with sender: any APNSSender) {
        generations.replace(with: sender)
    }

    /// Sends through the current sender.
    public func send(_ notification: APNSNotification) async throws -> APNSOutcome {
        let (generation, sender) = generations.acquire(1)
        defer { generations.release(generation, 1) }
        return try await sender.send(notification)
    }

    /// Sends a batch through the current sender, counting its results so a reload lets it finish.
    public func send(batch notifications: [APNSNotification], deliver: @escaping @Sendable ([APNSBatchResult]) -> Void) async {
        guard !notifications.isEmpty else { return }
        let (generation, sender) = generations.acquire(notifications.count)
        await sender.send(batch: notifications) { [generations] results in
            deliver(results)
            generations.release(generation, results.count)
        }
    }

    /// Sends broadcasts through the current sender, counting their results as for a batch.
    public func send(broadcasts: [APNSBroadcast], deliver: @escaping @Sendable ([APNSBatchResult]) -> Void) async {
        guard !broadcasts.isEmpty else { return }
        let (generation, sender) = generations.acquire(broadcasts.count)
        await sender.send(broadcasts: broadcasts) { [generations] results in
            deliver(results)
            generations.release(generation, results.count)
        }
    }

    /// Shuts down the current sender and any still draining.
    public func shutdown(deadline: Duration) async {
        let senders = generations.shutdownAll()
        await withTaskGroup(of: Void.self) { group in
            for sender in senders { group.addTask { await sender.shutdown(deadline: deadline) } }
        }
    }

    /// The current sender's connections.
    public func connectionState() async -> APNSSenderConnections? {
        await current.connectionState()
    }
}
