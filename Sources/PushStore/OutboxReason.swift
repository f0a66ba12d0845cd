public import APNSCore

/// Why an outbox row last failed to go out, as kept in its `last_reason` column: APNs' rejection
/// reason, no answer from APNs, or the row's expiration passed before it was sent.
public enum OutboxReason: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// APNs refused the notification for `reason` (retryable reasons included: 429/500/503).
    case rejected(APNSRejectionReason)
    /// No answer came from APNs (the transport failed; `TransportError` in the column).
    case transportError
    /// The row's `apns-expiration` passed before it could be sent (`Expired` in the column).
    case expired

    /// The column's text back as a reason: `TransportError` and `Expired` are the service's own words (APNs
    /// has no such reasons); anything else is APNs' reason.
    public init(rawValue: String) {
        switch rawValue {
        case "TransportError": self = .transportError
        case "Expired": self = .expired
        default: self = .rejected(APNSRejectionReason(rawValue: rawValue))
        }
    }

    /// The text kept in the column and shown in the API and webhooks.
    public var rawValue: String {
        switch self {
        case .rejected(let reason): reason.rawValue
        case .transportError: "TransportError"
        case .expired: "Expired"
        }
    }

    /// APNs' rejection reason, nil when APNs did not answer.
    public var rejectionReason: APNSRejectionReason? {
        if case .rejected(let reason) = self { return reason }
        return nil
    }

    /// The text.
    public var description: String {
        rawValue
    }
}
