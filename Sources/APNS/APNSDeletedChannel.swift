public import APNSCore

/// A deleted channel (APNs may still deliver messages it stored for it).
public struct APNSDeletedChannel: Sendable, Hashable {
    /// The channel deleted.
    public let channelID: APNSChannelID
    /// The `apns-request-id` APNs answered with.
    public let requestID: String?

    /// A deleted channel, as a fake channel manager would report it.
    public init(channelID: APNSChannelID, requestID: String? = nil) {
        self.channelID = channelID
        self.requestID = requestID
    }
}
