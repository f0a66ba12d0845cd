import Foundation
import PushStore

extension MatchService {
    /// The recipient accepts or declines a mate request; the answer is pushed back to its sender.
    ///
    /// Throws `MatchError.mateRequestNotFound`, `.notRecipient`, or `.alreadyAnswered` (a second answer; the
    /// REST layer maps it to 409). The answer push is queued before the answer is stored, so a crash between
    /// the two leaves the request answerable again rather than answered without a push.
    public func answer(mateRequestID: String, by userID: String, accept: Bool) async throws -> MateRequestRecord {
        await enterGate()
        defer { leaveGate() }
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
        var answered = request
        answered.state = accept ? .accepted : .declined
        answered.answeredAt = now
        let card = try await users.user(id: userID)?.card
        try await notifier.notifyAnswer(MateAnswerNotice(request: answered, responderCard: card), at: now)
        let stored: MateRequestRecord
        do {
            stored = try await mateRequests.answer(id: mateRequestID, accept: accept, by: userID, at: now)
        } catch PushStoreError.alreadyAnswered(let id, let state) {
            throw MatchError.alreadyAnswered(requestID: id, state: state)
        }
        if accept { metrics.accepted += 1 } else { metrics.declined += 1 }
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
}
