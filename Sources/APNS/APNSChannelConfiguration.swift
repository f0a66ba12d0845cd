public import APNSCore

/// A channel's configuration as APNs reports it.
public struct APNSChannelConfiguration: Sendable, Hashable {
    /// The channel asked about.
    public let channelID: APNSChannelID
    /// `message-storage-policy`, fixed at creation.
    public let storagePolicy: APNSMessageStoragePolicy
    /// `push-type` as APNs wrote it (Apple: `LiveActivity`).
    public let pushType: String
    /// The `apns-request-id` APNs answered with.
    public let requestID: String?

    /// A channel's configuration, as a fake channel manager would report it.
    public init(
        channelID: APNSChannelID, storagePolicy: APNSMessageStoragePolicy,
        pushType: String = APNSChannelManagementClient.liveActivityPushType, requestID: String? = nil
    ) {
        self.channelID = channelID
        self.storagePolicy = storagePolicy
        self.pushType = pushType
        self.requestID = requestID
    }
}
