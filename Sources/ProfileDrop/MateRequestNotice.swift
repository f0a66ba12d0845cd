import Foundation
public import PushStore

/// One mate request to push: the stored request and the card of the user who offers it.
public struct MateRequestNotice: Sendable, Equatable {
    /// The stored request (its recipient gets the push).
    public var request: MateRequestRecord
    /// The sender's profile card, carried in the payload.
    public var senderCard: ProfileCard

    /// Creates a notice.
    public init(request: MateRequestRecord, senderCard: ProfileCard) {
        self.request = request
        self.senderCard = senderCard
    }
}

/// One answer to push back to the request's sender.
public struct MateAnswerNotice: Sendable, Equatable {
    /// The request in its answered state (`accepted` or `declined`).
    public var request: MateRequestRecord
    /// The answering recipient's profile card, if they still have one.
    public var responderCard: ProfileCard?

    /// Creates a notice.
    public init(request: MateRequestRecord, responderCard: ProfileCard?) {
        self.request = request
        self.responderCard = responderCard
    }
}
