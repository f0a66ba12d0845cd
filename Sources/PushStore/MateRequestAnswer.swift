package import Foundation

/// The one rule for answering a mate request, shared by both repositories.
package enum MateRequestAnswer {
    package static func apply(
        accept: Bool, by userID: String, at now: Date,
        to request: inout MateRequestRecord
    ) throws(PushStoreError) {
        guard request.recipientID == userID else { throw .notRecipient(requestID: request.id, userID: userID) }
        guard request.state == .pending else {
            throw .alreadyAnswered(requestID: request.id, state: request.state.rawValue)
        }
        request.state = accept ? .accepted : .declined
        request.answeredAt = now.storeNormalized
    }
}
