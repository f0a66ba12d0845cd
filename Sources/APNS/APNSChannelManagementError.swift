public import APNSCore

/// Why a channel management request did not succeed: APNs (or the same rules checked locally)
/// refused it, no answer came, or the answer made no sense.
public enum APNSChannelManagementError: Error, Sendable, Equatable, CustomStringConvertible {
    /// APNs refused: Apple's status and reason; `apnsID` holds the answer's `apns-request-id`.
    case rejected(APNSRejection)
    /// No answer came (connection, timeout, shutdown, proxy).
    case transport(APNSTransportError)
    /// A success status whose headers or body are not what Apple documents.
    case malformedResponse(status: Int, message: String, requestID: String?)

    /// The rejection, when APNs refused.
    public var rejection: APNSRejection? {
        if case .rejected(let rejection) = self { return rejection }
        return nil
    }

    /// Apple's reason, when APNs refused.
    public var reason: APNSRejectionReason? {
        rejection?.reason
    }

    /// Whether the same request may succeed later (429, 500, 503, or a request that was never sent).
    public var isRetryable: Bool {
        switch self {
        case .rejected(let rejection): rejection.reason.isRetryable
        case .transport(let error): error.kind == .notSent || error.kind == .timeout
        case .malformedResponse: false
        }
    }

    /// One line: `rejected 400 ChannelNotRegistered`, the transport error, or what was malformed.
    public var description: String {
        switch self {
        case .rejected(let rejection): "rejected \(rejection)"
        case .transport(let error): "\(error)"
        case .malformedResponse(let status, let message, _): "malformed \(status) response: \(message)"
        }
    }
}
