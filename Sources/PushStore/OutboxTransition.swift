package import APNSCore
import Foundation

/// What `complete` writes for one in-flight row: shared by both outbox repositories.
package struct OutboxTransition {
    package var state: OutboxState
    package var status: Int?
    package var reason: OutboxReason?
    package var apnsUniqueID: String?
    package var nextAttemptMillis: Int64?

    /// The transition for `result` of row `id` after `attempts` sends, at `nowMillis`.
    package init(_ result: APNSDeliveryResult, id: String, attempts: Int, policy: OutboxRetryPolicy, nowMillis: Int64) {
        status = result.status
        reason = result.storedReason
        if case .accepted(_, let uniqueID) = result {
            state = .accepted
            apnsUniqueID = uniqueID
        } else if !result.retries {
            state = .rejected
        } else if attempts >= policy.maxAttempts {
            state = .failed
        } else {
            state = .queued
            let delay = policy.delay(afterAttempt: attempts, id: id)
            nextAttemptMillis = nowMillis + Int64((delay / .milliseconds(1)).rounded())
        }
    }

    /// Applies the transition to an in-memory copy of the row.
    package func apply(to item: inout OutboxItem, nowMillis: Int64) {
        item.state = state
        item.lastStatus = status
        item.lastReason = reason
        if let apnsUniqueID { item.apnsUniqueID = apnsUniqueID }
        if let nextAttemptMillis { item.nextAttemptAt = Date(storeMillis: nextAttemptMillis) }
        item.updatedAt = Date(storeMillis: nowMillis)
    }
}
