public import APNSCore
import Foundation

/// `ChannelRepository` in memory, with the same rules as the SQLite one (for tests).
public actor InMemoryChannelRepository: ChannelRepository {
    private struct Key: Hashable {
        var id: APNSChannelID
        var environment: APNSEnvironment
    }

    private var channels: [Key: ChannelRecord] = [:]

    /// An empty repository.
    public init() {}

    /// See `ChannelRepository.add`.
    public func add(_ channel: ChannelRecord) throws {
        try channel.validate()
        channels[Key(id: channel.id, environment: channel.environment)] = channel
    }

    /// See `ChannelRepository.channel(id:environment:)`.
    public func channel(id: APNSChannelID, environment: APNSEnvironment) -> ChannelRecord? {
        channels[Key(id: id, environment: environment)]
    }

    /// See `ChannelRepository.channels(topic:environment:)`.
    public func channels(topic: String, environment: APNSEnvironment?) -> [ChannelRecord] {
        channels.values
            .filter { $0.topic == topic && (environment == nil || $0.environment == environment) }
            .sorted { ($0.createdAt, $0.id.rawValue) < ($1.createdAt, $1.id.rawValue) }
    }

    /// See `ChannelRepository.remove(id:environment:)`.
    public func remove(id: APNSChannelID, environment: APNSEnvironment) -> Bool {
        channels.removeValue(forKey: Key(id: id, environment: environment)) != nil
    }
}
