/// What APNs answered for one notification; a rejection is an outcome, not a thrown error.
public enum APNSOutcome: Sendable, Hashable, CustomStringConvertible {
    /// 200: APNs took the notification. `uniqueID` is `apns-unique-id` (development environment only).
    case accepted(apnsID: String, uniqueID: String?)
    /// APNs refused the notification.
    case rejected(APNSRejection)

    /// Whether APNs took the notification.
    public var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }

    /// The `apns-id` APNs echoed, if any.
    public var apnsID: String? {
        switch self {
        case .accepted(let apnsID, _): apnsID
        case .rejected(let rejection): rejection.apnsID
        }
    }

    /// The rejection, when APNs refused.
    public var rejection: APNSRejection? {
        if case .rejected(let rejection) = self { return rejection }
        return nil
    }

    /// `accepted <id>` or `rejected <status> <reason>`.
    public var description: String {
        switch self {
        case .accepted(let apnsID, _): "accepted \(apnsID)"
        case .rejected(let rejection): "rejected \(rejection)"
        }
    }
}
