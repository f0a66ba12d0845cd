import Foundation
import PushStore

/// Delivers mate-request pushes: the boundary between the match service and the outbox (or a test double).
public protocol MateRequestNotifier: Sendable {
    /// Durably queues a `MATE_REQUEST` push for each notice's recipient devices, all notices or none.
    /// Must be idempotent per request id: a request already queued adds nothing (the service calls it again
    /// when it finishes a match interrupted by a crash). Calls for one request never overlap.
    func notifyMateRequests(_ notices: [MateRequestNotice], at now: Date) async throws
    /// Durably queues the `MATE_REQUEST_ANSWER` push to the request's sender; idempotent per request and answer.
    func notifyAnswer(_ notice: MateAnswerNotice, at now: Date) async throws
}

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
