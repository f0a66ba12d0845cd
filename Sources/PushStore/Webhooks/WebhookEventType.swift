/// The kinds of outcome an operator's endpoint can subscribe to. The raw value is the `type` a receiver sees.
public enum WebhookEventType: String, Sendable, CaseIterable, Hashable, Codable {
    /// APNs rejected a notification for good (a 4xx reason other than 429).
    case notificationRejected = "notification.rejected"
    /// A notification ran out of attempts (429/5xx or transport failures every time).
    case notificationFailed = "notification.failed"
    /// A notification's `apns-expiration` passed before it could be sent.
    case notificationExpired = "notification.expired"
    /// A device token was invalidated by Apple's rule (reason and Apple's timestamp included).
    case deviceInvalidated = "device.invalidated"
    /// A profile drop matched and a mate request was stored.
    case mateRequestCreated = "mate_request.created"
    /// The recipient accepted a mate request.
    case mateRequestAccepted = "mate_request.accepted"
    /// The recipient declined a mate request.
    case mateRequestDeclined = "mate_request.declined"
}
