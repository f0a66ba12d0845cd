public import APNS
public import APNSCore
import PushSync

/// A channel manager whose client can be replaced while it runs, for credential reloads (the channel
/// management twin of `SwappableSender`): requests that start after `replace(with:)` go to the new
/// client; the old one finishes every request it took and is then shut down. None is dropped or failed.
public final class SwappableChannelManager: APNSChannelManaging {
    private struct Generation {
        var manager: any APNSChannelManaging
        /// Requests handed to it that have not returned yet.
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

    /// Starts with `manager`.
    public init(_ manager: any APNSChannelManaging) {
        state = PThreadLock(State(current: 0, generations: [0: Generation(manager: manager)]))
    }

    /// The manager new requests go to.
    public var current: any APNSChannelManaging {
        state.withLock { $0.generations[$0.current]!.manager }
    }

    /// Managers replaced but still finishing their requests.
    public var draining: Int {
        state.withLock { $0.generations.values.filter(\.retired).count }
    }

    /// Makes `manager` the one new requests use; the previous one is shut down once its requests returned.
    public func replace(with manager: any APNSChannelManaging) {
        let idle: (any APNSChannelManaging)? = state.withLock { state in
            let old = state.current
            state.current = state.next
            state.generations[state.next] = Generation(manager: manager)
            state.next += 1
            state.generations[old]?.retired = true
            guard let generation = state.generations[old], generation.pending == 0 else { return nil }
            state.generations[old] = nil
            return generation.manager
        }
        if let idle { retire(idle) }
    }

    /// See `APNSChannelManaging.createChannel`.
    public func createChannel(
        bundleID: String, storagePolicy: APNSMessageStoragePolicy, requestID: String?
    ) async throws(APNSChannelManagementError) -> APNSCreatedChannel {
        try await run { manager throws(APNSChannelManagementError) in
            try await manager.createChannel(bundleID: bundleID, storagePolicy: storagePolicy, requestID: requestID)
        }
    }

    /// See `APNSChannelManaging.channel`.
    public func channel(
        _ channelID: APNSChannelID, bundleID: String, requestID: String?
    ) async throws(APNSChannelManagementError) -> APNSChannelConfiguration {
        try await run { manager throws(APNSChannelManagementError) in
            try await manager.channel(channelID, bundleID: bundleID, requestID: requestID)
        }
    }

    /// See `APNSChannelManaging.channels`.
    public func channels(bundleID: String, requestID: String?) async throws(APNSChannelManagementError) -> APNSChannelList {
        try await run { manager throws(APNSChannelManagementError) in
            try await manager.channels(bundleID: bundleID, requestID: requestID)
        }
    }

    /// See `APNSChannelManaging.deleteChannel`.
    public func deleteChannel(
        _ channelID: APNSChannelID, bundleID: String, requestID: String?
    ) async throws(APNSChannelManagementError) -> APNSDeletedChannel {
        try await run { manager throws(APNSChannelManagementError) in
            try await manager.deleteChannel(channelID, bundleID: bundleID, requestID: requestID)
        }
    }

    /// Shuts down the current manager and any still draining.
    public func shutdown() async {
        let managers = state.withLock { state in
            let all = state.generations.values.map(\.manager)
            state.generations = state.generations.filter { $0.key == state.current }
            return all
        }
        await withTaskGroup(of: Void.self) { group in
            for manager in managers { group.addTask { await manager.shutdown() } }
        }
    }

    /// Runs one request on the current manager, counted so a replacement waits for it.
    private func run<T>(
        _ body: (any APNSChannelManaging) async throws(APNSChannelManagementError) -> T
    ) async throws(APNSChannelManagementError) -> T {
        let (id, manager) = state.withLock { state in
            state.generations[state.current]!.pending += 1
            return (state.current, state.generations[state.current]!.manager)
        }
        defer { release(id) }
        return try await body(manager)
    }

    private func release(_ id: Int) {
        let idle: (any APNSChannelManaging)? = state.withLock { state in
            guard var generation = state.generations[id] else { return nil }
            generation.pending -= 1
            if generation.retired, generation.pending <= 0 {
                state.generations[id] = nil
                return generation.manager
            }
            state.generations[id] = generation
            return nil
        }
        if let idle { retire(idle) }
    }

    private func retire(_ manager: any APNSChannelManaging) {
        Task { await manager.shutdown() }
    }
}
