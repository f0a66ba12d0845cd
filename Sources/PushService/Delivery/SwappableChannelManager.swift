public import APNS
public import APNSCore

/// A channel manager whose client can be replaced while it runs, for credential reloads (the channel
/// management twin of `SwappableSender`): requests that start after `replace(with:)` go to the new
/// client; the old one finishes every request it took and is then shut down. None is dropped or failed.
public final class SwappableChannelManager: APNSChannelManaging {
    private let generations: Generations<any APNSChannelManaging>

    /// Starts with `manager`.
    public init(_ manager: any APNSChannelManaging) {
        generations = Generations(manager) { idle in
            Task { await idle.shutdown() }
        }
    }

    /// The manager new requests go to.
    public var current: any APNSChannelManaging { generations.current }

    /// Managers replaced but still finishing their requests.
    public var draining: Int { generations.draining }

    /// Makes `manager` the one new requests use; the previous one is shut down once its requests returned.
    public func replace(with manager: any APNSChannelManaging) {
        generations.replace(with: manager)
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
        let managers = generations.shutdownAll()
        await withTaskGroup(of: Void.self) { group in
            for manager in managers { group.addTask { await manager.shutdown() } }
        }
    }

    /// Runs one request on the current manager, counted so a replacement waits for it.
    private func run<T>(
        _ body: (any APNSChannelManaging) async throws(APNSChannelManagementError) -> T
    ) async throws(APNSChannelManagementError) -> T {
        let (generation, manager) = generations.acquire(1)
        defer { generations.release(generation, 1) }
        return try await body(manager)
    }
}
