public import APNSCore
public import Foundation

/// A broadcast channel the service created with Apple's channel management API, kept per app topic (the
/// bundle ID) and environment. Apple holds the channel itself; the store keeps what the service needs to
/// list it and to publish on it.
public struct ChannelRecord: Sendable, Equatable {
    /// The id APNs returned in `apns-channel-id`.
    public var id: APNSChannelID
    /// The app's bundle ID (no push-type suffix).
    public var topic: String
    /// The APNs environment the channel lives in.
    public var environment: APNSEnvironment
    /// The message storage policy it was created with.
    public var storagePolicy: APNSMessageStoragePolicy
    /// When the service created it.
    public var createdAt: Date

    /// A record from its parts.
    public init(
        id: APNSChannelID, topic: String, environment: APNSEnvironment, storagePolicy: APNSMessageStoragePolicy,
        createdAt: Date
    ) {
        self.id = id
        self.topic = topic
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.createdAt = createdAt.storeNormalized
    }

    /// Throws `PushStoreError` unless the record can be stored.
    package func validate() throws(PushStoreError) {
        // No length limit: Apple says not to assume the channel id's size ("Sending channel management
        // requests to APNs").
        guard id.isWellFormed else { throw .invalidField(field: "channel_id", reason: "must be base64") }
        try StoreValidation.required(topic, field: "topic", max: 255)
        try StoreValidation.environment(environment.name)
    }
}

/// The broadcast channels the service knows, per app topic and environment.
public protocol ChannelRepository: Sendable {
    /// Stores `channel`; a channel with the same id in the same environment is replaced.
    func add(_ channel: ChannelRecord) async throws
    /// The channel `id` of `environment`, if stored.
    func channel(id: APNSChannelID, environment: APNSEnvironment) async throws -> ChannelRecord?
    /// The channels of `topic` in `environment` (every environment when nil), oldest first.
    func channels(topic: String, environment: APNSEnvironment?) async throws -> [ChannelRecord]
    /// Forgets the channel `id` of `environment`; returns whether it was stored.
    @discardableResult
    func remove(id: APNSChannelID, environment: APNSEnvironment) async throws -> Bool
}
