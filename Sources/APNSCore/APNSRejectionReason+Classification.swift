extension APNSRejectionReason {
    /// Every reason Apple documents, grouped by status: device pushes, then (after each status's device
    /// reasons) those of broadcast push and channel management ("Handling error responses from Apple
    /// Push Notification service" in Apple's broadcast documentation).
    public static let allKnown: [APNSRejectionReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed,
        .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams,
        .badRequestPayload, .missingPushType, .cannotCreateChannelConfig,
        .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
        .invalidProviderToken, .missingProviderToken, .topicMismatch,
        .badPath,
        .methodNotAllowed,
        .expiredToken, .unregistered,
        .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests,
        .internalServerError,
        .serviceUnavailable, .shutdown,
    ]

    /// Known reasons by their string, for `init(rawValue:)`.
    static let byRawValue: [String: APNSRejectionReason] = Dictionary(
        uniqueKeysWithValues: allKnown.map { ($0.rawValue, $0) })

    /// The HTTP status APNs sends with this reason, or `nil` for an unknown reason.
    public var status: Int? {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType,
            .missingDeviceToken, .missingTopic, .payloadEmpty, .topicDisallowed,
            .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams,
            .badRequestPayload, .missingPushType, .cannotCreateChannelConfig:
            400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
            .invalidProviderToken, .missingProviderToken, .topicMismatch:
            403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .expiredToken, .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: 429
        case .internalServerError: 500
        case .serviceUnavailable, .shutdown: 503
        case .unknown: nil
        }
    }

    /// Whether sending the same notification again later may succeed (throttling or server trouble).
    public var isRetryable: Bool {
        switch self {
        case .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown: true
        default: false
        }
    }

    /// Whether the device token is dead for this topic and should be removed (subject to the 410 timestamp).
    public var invalidatesToken: Bool {
        switch self {
        case .badDeviceToken, .deviceTokenNotForTopic, .unregistered, .expiredToken: true
        default: false
        }
    }
}
