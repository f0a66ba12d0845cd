import APNSCore
import Foundation
import PushStore

/// The columns of `webhook_events`, in SELECT order.
enum WebhookEventColumn: Int32, StoreColumn {
    case eventID, endpointID, type, body, state, attempts, nextAttemptAt, lastStatus, lastError, createdAt, updatedAt
}

extension WebhookDelivery {
    /// The delivery in a row selecting `WebhookEventColumn.selectList`.
    init(row: some StoreRow) {
        self.init(
            eventID: row.string(WebhookEventColumn.eventID), endpointID: row.string(WebhookEventColumn.endpointID),
            type: WebhookEventType(rawValue: row.string(WebhookEventColumn.type)) ?? .notificationRejected,
            body: row.bytes(WebhookEventColumn.body),
            state: WebhookDeliveryState(rawValue: row.string(WebhookEventColumn.state)) ?? .pending,
            attempts: row.int(WebhookEventColumn.attempts), nextAttemptAt: row.date(WebhookEventColumn.nextAttemptAt),
            lastStatus: row.optionalInt(WebhookEventColumn.lastStatus),
            lastError: row.optionalString(WebhookEventColumn.lastError),
            createdAt: row.date(WebhookEventColumn.createdAt), updatedAt: row.date(WebhookEventColumn.updatedAt))
    }
}
