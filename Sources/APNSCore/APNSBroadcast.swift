/// One broadcast: a Live Activity update APNs delivers to every device subscribed to a channel
/// (Apple, "Sending broadcast push notification requests to APNs").
///
/// The request goes to the normal APNs hosts (`api.push.apple.com:443`, `api.sandbox.push.apple.com:443`)
/// as `POST /4/broadcasts/apps/<bundle ID>` with `apns-channel-id`, `apns-push-type`, `apns-priority` and
/// `apns-expiration` (all required) and an optional `apns-request-id`; no `apns-topic`.
///
/// Where Apple's page disagrees with itself, this follows its header tables over its samples: the
/// samples' host `api-broadcast.sandbox.push.apple.com` contradicts the page's own "Establish a
/// connection" list, and the token sample's `apns-id` contradicts the table's `apns-request-id`.
public struct APNSBroadcast: Sendable, Hashable {
    /// The app's bundle ID, without any push-type suffix (Apple answers `TopicDisallowed` to a suffix).
    public var bundleID: String
    /// The channel to publish on.
    public var channelID: APNSChannelID
    /// `apns-push-type`: Apple allows only Live Activities on channels.
    ///
    /// Apple spells the value three ways (`LiveActivity` in the error table, `Liveactivity` in the
    /// broadcast header table, `liveactivity` in its samples and for device pushes); the client sends
    /// `liveactivity`, the spelling of every other push type and of `PushType.liveactivity`.
    public var pushType: PushType
    /// `apns-priority` (required): 10, 5 or 1.
    public var priority: Priority
    /// `apns-expiration` (required): `.immediately` (0) delivers once without storing it; a later date
    /// needs a channel with ``APNSMessageStoragePolicy/mostRecentMessageStored``.
    public var expiration: APNSExpiration
    /// `apns-request-id`, or nil to let APNs make one up. Lowercased when it is a valid UUID; anything
    /// else is kept as given and ``validate()`` reports it as `BadMessageId`.
    public var requestID: String? {
        didSet { requestID = APNSID.normalized(requestID) }
    }
    /// The JSON body (at most 5,120 bytes).
    public var payload: [UInt8]

    /// A broadcast from an already encoded JSON body.
    public init(
        bundleID: String, channelID: APNSChannelID, pushType: PushType = .liveactivity, priority: Priority = .immediately,
        expiration: APNSExpiration = .immediately, requestID: String? = nil, payload: [UInt8]
    ) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.requestID = APNSID.normalized(requestID)
        self.payload = payload
    }

    /// A broadcast whose body is `payload.encoded()`.
    public init(
        bundleID: String, channelID: APNSChannelID, pushType: PushType = .liveactivity, priority: Priority = .immediately,
        expiration: APNSExpiration = .immediately, requestID: String? = nil, payload: APNSPayload
    ) {
        self.init(
            bundleID: bundleID, channelID: channelID, pushType: pushType, priority: priority, expiration: expiration,
            requestID: requestID, payload: payload.encoded())
    }

    /// The request `:path`, `/4/broadcasts/apps/<bundle ID>`.
    public var path: String {
        APNSHeader.broadcastPathPrefix + bundleID
    }

    /// The request headers: `apns-channel-id`, `apns-push-type`, `apns-priority`, `apns-expiration` (when
    /// set: leaving it out is refused as `BadExpirationDate`) and `apns-request-id` (when set).
    /// `authorization` is added by the client for token auth.
    public func headerFields() -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            (APNSHeader.channelID, channelID.rawValue),
            (APNSHeader.pushType, pushType.rawValue),
            (APNSHeader.priority, priority.headerValue),
        ]
        if let value = expiration.headerValue { fields.append((APNSHeader.expiration, value)) }
        if let requestID { fields.append((APNSHeader.requestID, requestID)) }
        return fields
    }

    /// Checks what APNs checks without its channel registry and returns the rejection it would send,
    /// or nil. With the channel's `storagePolicy` known, a nonzero expiration on a No Message Stored
    /// channel is refused too. In this order (all 400 unless noted; Apple's error table):
    /// - bundle ID empty or holding `/`: 404 `BadPath`
    /// - bundle ID with a push-type suffix: `TopicDisallowed`
    /// - `apns-request-id` not a UUID: `BadMessageId`
    /// - channel id empty: `MissingChannelId`; not base64: `BadChannelId`
    /// - push type other than `liveactivity`: `InvalidPushType`
    /// - expiration left out or negative, or nonzero on a No Message Stored channel: `BadExpirationDate`
    /// - empty body: `PayloadEmpty`; over 5,120 bytes: 413 `PayloadTooLarge`
    /// - a body that is no Live Activity update or end (`APNSLiveActivityRules.broadcastPayloadProblem`):
    ///   `BadRequestPayload`
    public func validate(storagePolicy: APNSMessageStoragePolicy? = nil) -> APNSRejection? {
        if let reason = Self.bundleIDRejection(bundleID) { return reject(reason) }
        if let requestID, !APNSID.isValid(requestID) { return reject(.badMessageId) }
        if channelID.rawValue.isEmpty { return reject(.missingChannelId) }
        if !channelID.isWellFormed { return reject(.badChannelId) }
        if pushType.rawValue.lowercased() != PushType.liveactivity.rawValue { return reject(.invalidPushType) }
        guard let seconds = expiration.epochSeconds, seconds >= 0 else { return reject(.badExpirationDate) }
        if seconds != 0, storagePolicy == .noMessageStored { return reject(.badExpirationDate) }
        if payload.isEmpty { return reject(.payloadEmpty) }
        if payload.count > APNSHeader.maxBroadcastPayloadBytes { return reject(.payloadTooLarge) }
        if APNSLiveActivityRules.broadcastPayloadProblem(payload) != nil { return reject(.badRequestPayload) }
        return nil
    }

    /// What APNs answers to `bundleID` in a broadcast or channel management path: 404 `BadPath` when it
    /// is empty or holds `/` (the path no longer names one app), 400 `TopicDisallowed` when it carries a
    /// push-type suffix such as `.push-type.liveactivity` (Apple: "no push type suffix"); nil when fine.
    public static func bundleIDRejection(_ bundleID: String) -> APNSRejectionReason? {
        if bundleID.isEmpty || bundleID.contains("/") { return .badPath }
        if PushType.all.contains(where: { $0.topicSuffix.map { bundleID.hasSuffix($0) } == true }) { return .topicDisallowed }
        return nil
    }

    private func reject(_ reason: APNSRejectionReason) -> APNSRejection {
        APNSRejection(reason, apnsID: requestID)
    }
}
