/// The outcome of one send attempt, reported to `OutboxRepository.complete`.
public enum OutboxResult: Sendable, Equatable {
    /// APNs answered 200; `apnsUniqueID` is the `apns-unique-id` header (development only).
    case accepted(apnsUniqueID: String?)
    /// APNs rejected the notification for good (e.g. 400 BadDeviceToken, 410 Unregistered).
    case rejected(status: Int, reason: String)
    /// Try again later: 429/500/503, or a transport failure whose outcome is unknown (`status` nil).
    case retry(status: Int?, reason: String)
}
