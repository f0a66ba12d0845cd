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

/// Why a channel management request did not succeed: APNs (or the same rules checked locally)
/// refused it, no answer came, or the answer made no sense.
public enum APNSChannelManagementError: Error, Sendable, Equatable, CustomStringConvertible {
    /// APNs refused: Apple's status and reason; `apnsID` holds the answer's `apns-request-id`.
    case rejected(APNSRejection)
    /// No answer came (connection, timeout, shutdown, proxy).
    case transport(APNSTransportError)
    /// A success status whose headers or body are not what Apple documents.
    case malformedResponse(status: Int, message: String, requestID: String?)

    /// The rejection, when APNs refused.
    public var rejection: APNSRejection? {
        if case .rejected(let rejection) = self { return rejection }
        return nil
    }

    /// Apple's reason, when APNs refused.
    public var reason: APNSRejectionReason? {
        rejection?.reason
    }

    /// Whether the same request may succeed later (429, 500, 503, or a request that was never sent).
    public var isRetryable: Bool {
        switch self {
        case .rejected(let rejection): rejection.reason.isRetryable
        case .transport(let error): error.kind == .notSent || error.kind == .timeout
        case .malformedResponse: false
        }
    }

    /// One line: `rejected 400 ChannelNotRegistered`, the transport error, or what was malformed.
    public var description: String {
        switch self {
        case .rejected(let rejection): "rejected \(rejection)"
        case .transport(let error): "\(error)"
        case .malformedResponse(let status, let message, _): "malformed \(status) response: \(message)"
        }
    }
}
