import Foundation
public import PushStore

extension MatchService {
    /// The recipient accepts or declines a mate request; the answer is pushed back to its sender.
    ///
    /// Throws `MatchError.mateRequestNotFound`, `.notRecipient`, or `.alreadyAnswered` (a second answer; the
    /// REST layer maps it to 409). The answer and its push are stored in one transaction, so of two racing
    /// answers exactly one is stored and pushed.
    public func answer(mateRequestID: String, by userID: String, accept: Bool) async throws -> MateRequestRecord {
        guard let request = try await mateRequests.request(id: mateRequestID) else {
            throw MatchError.mateRequestNotFound(mateRequestID)
        }
        guard request.recipientID == userID else {
            throw MatchError.notRecipient(requestID: mateRequestID, userID: userID)
        }
        guard request.state == .pending else {
            throw MatchError.alreadyAnswered(requestID: mateRequestID, state: request.state.rawValue)
        }
        let now = clock()
        let card = try await users.user(id: userID)?.card
        let recipients = try await pushes.recipients([request.senderID])
        let stored: MateRequestRecord
        do {
            stored = try await mateRequests.answer(id: mateRequestID, accept: accept, by: userID, at: now) { answered in
                recipients.rows(for: MateAnswerNotice(request: answered, responderCard: card), at: now)
            }
        } catch PushStoreError.alreadyAnswered(let id, let state) {
            throw MatchError.alreadyAnswered(requestID: id, state: state)
        }
        if accept { metrics.accepted += 1 } else { metrics.declined += 1 }
        queued()
        return stored
    }

    /// The user's mate requests in `role`, oldest first (for `GET /v1/users/{id}/mate-requests`).
    public nonisolated func mateRequests(
        forUser userID: String,
        role: MateRequestRole = .any
    ) async throws -> [MateRequestRecord] {
        try await mateRequests.requests(forUser: userID, role: role)
    }

    /// The mate request with `id`, or nil.
    public nonisolated func mateRequest(id: String) async throws -> MateRequestRecord? {
        try await mateRequests.request(id: id)
    }

    /// The id of the mate request the drop's initiator receives (carrying the peer's card).
    public nonisolated static func requestIDToInitiator(dropID: String) -> String { MateRequestID.toInitiator(dropID: dropID) }
    /// The id of the mate request the drop's peer receives (carrying the initiator's card).
    public nonisolated static func requestIDToPeer(dropID: String) -> String { MateRequestID.toPeer(dropID: dropID) }
}
