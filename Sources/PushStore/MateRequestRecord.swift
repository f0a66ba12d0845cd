public import Foundation

/// The state of a mate request.
public enum MateRequestState: String, Sendable, CaseIterable, Hashable {
    /// Waiting for the recipient's answer.
    case pending
    /// The recipient accepted.
    case accepted
    /// The recipient declined.
    case declined
}

/// Which side of a mate request a listing asks for.
public enum MateRequestRole: Sendable, Hashable {
    /// Requests the user received.
    case recipient
    /// Requests the user sent.
    case sender
    /// Both.
    case any
}

/// A stored mate request, made when a drop matches.
public struct MateRequestRecord: Sendable, Equatable {
    /// The request id.
    public var id: String
    /// The drop that produced it.
    public var dropID: String
    /// The user whose card is offered.
    public var senderID: String
    /// The user asked to answer.
    public var recipientID: String
    /// The request's state.
    public var state: MateRequestState
    /// When it was made.
    public var createdAt: Date
    /// When it was answered, if it was.
    public var answeredAt: Date?

    /// Creates a record (a new request is `pending`).
    public init(
        id: String, dropID: String, senderID: String, recipientID: String,
        state: MateRequestState = .pending, createdAt: Date, answeredAt: Date? = nil
    ) {
        self.id = id
        self.dropID = dropID
        self.senderID = senderID
        self.recipientID = recipientID
        self.state = state
        self.createdAt = createdAt.storeNormalized
        self.answeredAt = answeredAt?.storeNormalized
    }

    package func validate() throws(PushStoreError) {
        try StoreValidation.required(id, field: "mate request id", max: 128)
        try StoreValidation.required(dropID, field: "drop id", max: 128)
        try StoreValidation.userID(senderID)
        try StoreValidation.userID(recipientID)
    }
}
