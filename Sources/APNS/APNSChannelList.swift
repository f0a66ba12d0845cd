public import APNSCore

/// Every channel of one bundle ID in one environment.
public struct APNSChannelList: Sendable, Hashable {
    /// The channel ids, in APNs' order.
    public let channelIDs: [APNSChannelID]
    /// The `apns-request-id` APNs answered with.
    public let requestID: String?

    /// A list of channels, as a fake channel manager would report it.
    public init(channelIDs: [APNSChannelID], requestID: String? = nil) {
        self.channelIDs = channelIDs
        self.requestID = requestID
    }
}
