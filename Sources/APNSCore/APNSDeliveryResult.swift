/// What became of one notification (or broadcast) sent to APNs: APNs' answer, or why none came.
///
/// The one result per notification: the client's batch sends hand it over (``APNSBatchResult``), and a
/// program that keeps notifications durably (the push service's outbox, its webhooks) stores and reports
/// it as it is. A rejection is an answer, not an error; a transport failure says what is known of the
/// notification's fate (``APNSTransportError/Kind``: not sent, outcome unknown, timed out, ...).
public enum APNSDeliveryResult: Sendable, Equatable, CustomStringConvertible {
    /// 200: APNs took the notification. `apnsID` is the `apns-id` it echoed (`apns-request-id` for a
    /// broadcast), `uniqueID` the `apns-unique-id` (development environment only).
    case accepted(apnsID: String, uniqueID: String?)
    /// APNs refused the notification: status, reason and, for 410, the timestamp.
    case rejected(APNSRejection)
    /// No answer came from APNs; the error's kind says whether a resend may duplicate it.
    case failed(APNSTransportError)

    /// The result of an answer.
    public init(_ outcome: APNSOutcome) {
        switch outcome {
        case .accepted(let apnsID, let uniqueID): self = .accepted(apnsID: apnsID, uniqueID: uniqueID)
        case .rejected(let rejection): self = .rejected(rejection)
        }
    }

    /// The result of an answer or of its absence.
    public init(_ result: Result<APNSOutcome, APNSTransportError>) {
        switch result {
        case .success(let outcome): self.init(outcome)
        case .failure(let error): self = .failed(error)
        }
    }

    /// APNs' answer, or the transport error: the shape ``APNSBatchResult/result`` has always had.
    public var result: Result<APNSOutcome, APNSTransportError> {
        switch self {
        case .accepted(let apnsID, let uniqueID): .success(.accepted(apnsID: apnsID, uniqueID: uniqueID))
        case .rejected(let rejection): .success(.rejected(rejection))
        case .failed(let error): .failure(error)
        }
    }

    /// APNs' answer, nil when none came.
    public var outcome: APNSOutcome? {
        switch self {
        case .accepted(let apnsID, let uniqueID): .accepted(apnsID: apnsID, uniqueID: uniqueID)
        case .rejected(let rejection): .rejected(rejection)
        case .failed: nil
        }
    }

    /// Whether APNs took the notification.
    public var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }

    /// The rejection, when APNs refused.
    public var rejection: APNSRejection? {
        if case .rejected(let rejection) = self { return rejection }
        return nil
    }

    /// The transport error, when no answer came.
    public var transportError: APNSTransportError? {
        if case .failed(let error) = self { return error }
        return nil
    }

    /// The HTTP status of the answer: 200, the rejection's, or nil when none came.
    public var status: Int? {
        switch self {
        case .accepted: 200
        case .rejected(let rejection): rejection.status
        case .failed: nil
        }
    }

    /// `accepted <id>`, `rejected <status> <reason>` or `failed <kind>: <message>`.
    public var description: String {
        switch self {
        case .accepted(let apnsID, _): "accepted \(apnsID)"
        case .rejected(let rejection): "rejected \(rejection)"
        case .failed(let error): "failed \(error)"
        }
    }
}
