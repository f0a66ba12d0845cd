public import APNSCore

/// What a delivery result means for its outbox row: the result itself is what `complete` records
/// (`OutboxCompletion.result`), as the APNs client gave it.
extension APNSDeliveryResult {
    /// Whether the row is sent again (subject to the retry policy's attempt limit): a retryable rejection
    /// (429/500/503: `APNSRejectionReason.isRetryable`) or no answer; an acceptance or any other rejection
    /// is final.
    public var retries: Bool {
        switch self {
        case .accepted: false
        case .rejected(let rejection): rejection.reason.isRetryable
        case .failed: true
        }
    }

    /// The reason kept in the row: APNs' reason, or `transportError` when no answer came.
    public var storedReason: OutboxReason? {
        switch self {
        case .accepted: nil
        case .rejected(let rejection): .rejected(rejection.reason)
        case .failed: .transportError
        }
    }
}
