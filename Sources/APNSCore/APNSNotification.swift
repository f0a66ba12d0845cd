/// One notification to one device: the request APNs receives, minus the connection-level parts.
public struct APNSNotification: Sendable, Hashable {
    /// The device to deliver to; sets `path`.
    public var token: DeviceToken {
        didSet { path = Self.path(for: token) }
    }
    /// `apns-topic`: the bundle ID, plus the push type's suffix where Apple requires one.
    public var topic: String
    /// `apns-push-type`.
    public var pushType: PushType
    /// `apns-priority`, or `nil` to omit it (APNs then uses 10, or 5 for background).
    public var priority: Priority?
    /// `apns-expiration`.
    public var expiration: APNSExpiration
    /// `apns-collapse-id`, or `nil` to omit it.
    public var collapseID: String?
    /// `apns-id`, or `nil` to let APNs generate one. Lowercased when it is a valid UUID;
    /// anything else is kept as given, and `validate()` reports it as `BadMessageId`.
    public var apnsID: String? {
        didSet { (apnsID, apnsIDIsValid) = APNSID.normalizing(apnsID) }
    }
    /// Whether `apnsID` is nil or a valid id: found when it is set, so `validate()` need not look again.
    private(set) var apnsIDIsValid: Bool
    /// The request body: raw UTF-8 JSON bytes.
    public var payload: [UInt8]
    /// The request `:path`: `/3/device/<hex token>`, kept ready for the hot path.
    public private(set) var path: String

    /// Creates a notification from an already encoded JSON body.
    public init(
        token: DeviceToken,
        topic: String,
        pushType: PushType = .alert,
        priority: Priority? = nil,
        expiration: APNSExpiration = .none,
        collapseID: String? = nil,
        apnsID: String? = nil,
        payload: [UInt8]
    ) {
        let (id, valid) = APNSID.normalizing(apnsID)
        self.init(
            token: token, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, normalizedID: id, idIsValid: valid, payload: payload)
    }

    /// Creates a notification whose `apns-id` is an ``APNSID`` already checked (one the sender made or
    /// read back from its own store): taken in lowercase as it is, not checked again.
    public init(
        token: DeviceToken,
        topic: String,
        pushType: PushType = .alert,
        priority: Priority? = nil,
        expiration: APNSExpiration = .none,
        collapseID: String? = nil,
        id: APNSID?,
        payload: [UInt8]
    ) {
        self.init(
            token: token, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, normalizedID: id?.lowercased, idIsValid: true, payload: payload)
    }

    /// The one initializer that sets the fields: `normalizedID` as the request carries it, and whether it was
    /// a valid apns-id (kept for `validate()`).
    private init(
        token: DeviceToken, topic: String, pushType: PushType, priority: Priority?, expiration: APNSExpiration,
        collapseID: String?, normalizedID: String?, idIsValid: Bool, payload: [UInt8]
    ) {
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = normalizedID
        apnsIDIsValid = idIsValid
        self.payload = payload
        self.path = Self.path(for: token)
    }

    /// Creates a notification whose body is `payload.encoded()`.
    public init(
        token: DeviceToken,
        topic: String,
        pushType: PushType = .alert,
        priority: Priority? = nil,
        expiration: APNSExpiration = .none,
        collapseID: String? = nil,
        apnsID: String? = nil,
        payload: APNSPayload
    ) {
        self.init(
            token: token, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, apnsID: apnsID, payload: payload.encoded())
    }

    private static func path(for token: DeviceToken) -> String {
        APNSHeader.devicePathPrefix + token.hex
    }
}
