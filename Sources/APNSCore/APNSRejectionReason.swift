/// The `reason` APNs gives in an error response body; unknown strings survive in `unknown`.
/// Known by its reason string (``RawValueIdentified``), so `.unknown("BadTopic") == .badTopic`.
public enum APNSRejectionReason: RawValueIdentified, Sendable {
    /// 400: the collapse identifier exceeds 64 bytes.
    case badCollapseId
    /// 400: the device token is invalid or belongs to the other environment.
    case badDeviceToken
    /// 400: `apns-expiration` is bad.
    case badExpirationDate
    /// 400: `apns-id` is bad.
    case badMessageId
    /// 400: `apns-priority` is bad (or 10 for a background push).
    case badPriority
    /// 400: `apns-topic` is invalid.
    case badTopic
    /// 400: the device token does not match the topic.
    case deviceTokenNotForTopic
    /// 400: a header appears more than once.
    case duplicateHeaders
    /// 400: the connection was idle too long.
    case idleTimeout
    /// 400: `apns-push-type` is invalid or does not fit the topic.
    case invalidPushType
    /// 400: no device token in the path.
    case missingDeviceToken
    /// 400: `apns-topic` is required but missing.
    case missingTopic
    /// 400: the payload is empty.
    case payloadEmpty
    /// 400: pushing to this topic is not allowed (broadcast: the bundle ID carries a push-type suffix).
    case topicDisallowed
    /// 400, broadcast and channels: the app's broadcast capability is not enabled.
    case featureNotEnabled
    /// 400, broadcast and channels: `apns-channel-id` is missing.
    case missingChannelId
    /// 400, broadcast and channels: `apns-channel-id` is not proper base64 or is too long.
    case badChannelId
    /// 400, broadcast and channels: the channel does not exist (never created, or deleted).
    case channelNotRegistered
    /// 400, channels: the JSON body has an attribute (or value) APNs does not recognise.
    case badRequestParams
    /// 400, broadcast and channels: the JSON body cannot be parsed.
    case badRequestPayload
    /// 400, broadcast and channels: `apns-push-type` (or the body's `push-type`) is missing.
    case missingPushType
    /// 400, channels: the app has reached its channel limit (10,000 per environment).
    case cannotCreateChannelConfig
    /// 403: the client certificate is bad.
    case badCertificate
    /// 403: the client certificate is for the other environment.
    case badCertificateEnvironment
    /// 403: the provider token is stale; make a new one.
    case expiredProviderToken
    /// 403: the action is not allowed.
    case forbidden
    /// 403: the provider token is invalid or its signature does not verify.
    case invalidProviderToken
    /// 403, broadcast and channels: the bundle ID in the path is not among the token's or certificate's.
    case topicMismatch
    /// 403: neither a certificate nor a provider token was given.
    case missingProviderToken
    /// 404: the request path is bad.
    case badPath
    /// 405: only POST is supported.
    case methodNotAllowed
    /// 410: the device token has expired.
    case expiredToken
    /// 410: the device token is no longer active for the topic.
    case unregistered
    /// 413: the payload is too large.
    case payloadTooLarge
    /// 429: the provider token was updated too often.
    case tooManyProviderTokenUpdates
    /// 429: too many requests to the same device token.
    case tooManyRequests
    /// 500: an internal server error.
    case internalServerError
    /// 503: the service is unavailable.
    case serviceUnavailable
    /// 503: the APNs server is shutting down.
    case shutdown
    /// A reason this library does not know (or an empty/missing one), kept verbatim.
    case unknown(String)

    /// Maps a reason string to its case; unknown strings become `.unknown(rawValue)`.
    ///
    /// Apple's broadcast error table spells the 503 reason `Service Unavailable` (with a space) where the
    /// device-push table has `ServiceUnavailable`: both read as ``serviceUnavailable``, which writes the
    /// device-push spelling (the one without a space, like every other reason).
    public init(rawValue: String) {
        self = Self.byRawValue[rawValue] ?? (rawValue == "Service Unavailable" ? .serviceUnavailable : .unknown(rawValue))
    }

    /// The reason string exactly as APNs writes it.
    public var rawValue: String {
        switch self {
        case .badCollapseId: "BadCollapseId"
        case .badDeviceToken: "BadDeviceToken"
        case .badExpirationDate: "BadExpirationDate"
        case .badMessageId: "BadMessageId"
        case .badPriority: "BadPriority"
        case .badTopic: "BadTopic"
        case .deviceTokenNotForTopic: "DeviceTokenNotForTopic"
        case .duplicateHeaders: "DuplicateHeaders"
        case .idleTimeout: "IdleTimeout"
        case .invalidPushType: "InvalidPushType"
        case .missingDeviceToken: "MissingDeviceToken"
        case .missingTopic: "MissingTopic"
        case .payloadEmpty: "PayloadEmpty"
        case .topicDisallowed: "TopicDisallowed"
        case .featureNotEnabled: "FeatureNotEnabled"
        case .missingChannelId: "MissingChannelId"
        case .badChannelId: "BadChannelId"
        case .channelNotRegistered: "ChannelNotRegistered"
        case .badRequestParams: "BadRequestParams"
        case .badRequestPayload: "BadRequestPayload"
        case .missingPushType: "MissingPushType"
        case .cannotCreateChannelConfig: "CannotCreateChannelConfig"
        case .badCertificate: "BadCertificate"
        case .badCertificateEnvironment: "BadCertificateEnvironment"
        case .expiredProviderToken: "ExpiredProviderToken"
        case .forbidden: "Forbidden"
        case .invalidProviderToken: "InvalidProviderToken"
        case .topicMismatch: "TopicMismatch"
        case .missingProviderToken: "MissingProviderToken"
        case .badPath: "BadPath"
        case .methodNotAllowed: "MethodNotAllowed"
        case .expiredToken: "ExpiredToken"
        case .unregistered: "Unregistered"
        case .payloadTooLarge: "PayloadTooLarge"
        case .tooManyProviderTokenUpdates: "TooManyProviderTokenUpdates"
        case .tooManyRequests: "TooManyRequests"
        case .internalServerError: "InternalServerError"
        case .serviceUnavailable: "ServiceUnavailable"
        case .shutdown: "Shutdown"
        case .unknown(let text): text
        }
    }
}
