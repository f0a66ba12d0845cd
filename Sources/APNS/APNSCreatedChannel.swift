public import APNSCore

/// A channel APNs created: its id (Apple makes it up; don't assume its size) and the request's id.
public struct APNSCreatedChannel: Sendable, Hashable {
    /// The new channel's id, from the `apns-channel-id` response header.
    public let channelID: APNSChannelID
    /// The `apns-request-id` APNs answered with (the one sent, or one it made up).
    public let requestID: String?

    /// A created channel, as a fake channel manager would report it.
    public init(channelID: APNSChannelID, requestID: String? = nil) {
        self.channelID = channelID
        self.requestID = requestID
    }
}
