public import APNSCore

/// The outcome of one send attempt as the APNs client gave it, reported to `OutboxRepository.complete`:
/// the rejection and the transport failure keep their types (reason, status, timestamp; whether the
/// notification may have been delivered) all the way to the outbox.
public enum OutboxResult: Sendable, Equatable {
    /// APNs answered 200; `apnsUniqueID` is the `apns-unique-id` header (development only).
    case accepted(apnsUniqueID: String?)
    /// APNs rejected the notification; the row ends `rejected` unless the reason is retryable
    /// (429/500/503: `APNSRejectionReason.isRetryable`), when it goes back to the queue with back-off.
    case rejected(APNSRejection)
    /// No answer from APNs: the row goes back to the queue with back-off.
    case transportFailed(APNSTransportError)

    /// Whether the row is sent again (subject to the retry policy's attempt limit).
    public var retries: Bool {
        switch self {
        case .accepted: false
        case .rejected(let rejection): rejection.reason.isRetryable
        case .transportFailed: true
        }
    }

    /// The reason kept in the row: APNs' reason, or `transportError` when no answer came.
    public var storedReason: OutboxReason? {
        switch self {
        case .accepted: nil
        case .rejected(let rejection): .rejected(rejection.reason)
        case .transportFailed: .transportError
        }
    }

    /// The HTTP status kept in the row (nil when no answer came).
    public var storedStatus: Int? {
        switch self {
        case .accepted: 200
        case .rejected(let rejection): rejection.status
        case .transportFailed: nil
        }
    }
}
