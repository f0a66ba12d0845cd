extension APNSRejectionReason {
    /// Every reason Apple documents, grouped by status.
    public static let allKnown: [APNSRejectionReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed,
        .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
        .invalidProviderToken, .missingProviderToken,
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
            .missingDeviceToken, .missingTopic, .payloadEmpty, .topicDisallowed:
            400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
            .invalidProviderToken, .missingProviderToken:
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
