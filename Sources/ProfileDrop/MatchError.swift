/// Why the match service refused a call. Nothing is changed when one of these is thrown.
public enum MatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A user reported themselves as the peer.
    case selfReport(userID: String)
    /// The distance or direction cannot be judged.
    case invalidMeasurement(DropInputError)
    /// A user named in the call has no profile (every drop user needs a card for the mate request).
    case unknownUser(String)
    /// No mate request has this id.
    case mateRequestNotFound(String)
    /// Only the recipient may answer a mate request.
    case notRecipient(requestID: String, userID: String)
    /// The mate request was answered already (the REST layer answers 409); `state` is its current state.
    case alreadyAnswered(requestID: String, state: String)

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .selfReport(let id): return "user \(id) cannot drop a profile on themselves"
        case .invalidMeasurement(let why): return "invalid measurement: \(why)"
        case .unknownUser(let id): return "unknown user \(id)"
        case .mateRequestNotFound(let id): return "mate request \(id) not found"
        case .notRecipient(let requestID, let userID):
            return "user \(userID) is not the recipient of mate request \(requestID)"
        case .alreadyAnswered(let requestID, let state): return "mate request \(requestID) already answered: \(state)"
        }
    }
}
