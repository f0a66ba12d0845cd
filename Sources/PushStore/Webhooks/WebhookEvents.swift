package import APNSCore
package import Foundation
import JSON

/// The events the stores write, built from the rows that changed.
package enum WebhookEvents {
    /// A notification that ended `state` (rejected or failed) at `now` with the delivery result `result`, as
    /// the APNs client gave it: its status and reason are the event's.
    package static func notification(_ item: OutboxItem, state: OutboxState, result: APNSDeliveryResult, now: Date) -> WebhookEvent? {
        notification(item, state: state, status: result.status, reason: result.storedReason, now: now)
    }

    /// A notification that ended `state` (rejected, failed or expired) at `now`.
    package static func notification(_ item: OutboxItem, state: OutboxState, status: Int?, reason: OutboxReason?, now: Date)
        -> WebhookEvent?
    {
        let type: WebhookEventType
        switch state {
        case .rejected: type = .notificationRejected
        case .failed: type = .notificationFailed
        case .expired: type = .notificationExpired
        default: return nil
        }
        var data: [String: JSONValue] = [
            "notification_id": .string(item.id), "push_id": .string(item.pushID), "token": .string(item.target.deviceToken?.hex ?? ""),
            "topic": .string(item.topic), "environment": .string(item.environment.name),
            "attempts": .int(Int64(item.attempts)),
        ]
        if let status { data["status"] = .int(Int64(status)) }
        if let reason { data["reason"] = .string(reason.rawValue) }
        return WebhookEvent(type: type, occurredAt: now, data: .object(data))
    }

    /// A device registration invalidated for `reason`, which APNs dated `timestamp`.
    package static func deviceInvalidated(_ device: DeviceRecord, reason: APNSRejectionReason, timestamp: Date) -> WebhookEvent {
        WebhookEvent(
            type: .deviceInvalidated, occurredAt: Date(),
            data: [
                "token": .string(device.token.hex), "topic": .string(device.topic), "user_id": .string(device.userID),
                "environment": .string(device.environment.name), "reason": .string(reason.rawValue),
                "apns_timestamp": .int(timestamp.storeMillis),
            ])
    }

    /// A mate request stored (`created`) or answered (`accepted`/`declined`).
    package static func mateRequest(_ request: MateRequestRecord, type: WebhookEventType) -> WebhookEvent {
        var data: [String: JSONValue] = [
            "mate_request_id": .string(request.id), "drop_id": .string(request.dropID),
            "sender_id": .string(request.senderID), "recipient_id": .string(request.recipientID),
            "state": .string(request.state.rawValue),
        ]
        if let answeredAt = request.answeredAt { data["answered_at"] = .int(answeredAt.storeMillis) }
        return WebhookEvent(type: type, occurredAt: request.answeredAt ?? request.createdAt, data: .object(data))
    }

    /// The answer event for an answered request.
    package static func answered(_ request: MateRequestRecord) -> WebhookEvent {
        mateRequest(request, type: request.state == .accepted ? .mateRequestAccepted : .mateRequestDeclined)
    }
}

/// The endpoints subscribed to each event type, read once per transaction that may write events.
package struct WebhookSubscribers: Sendable {
    /// Endpoint ids per type.
    package var byType: [WebhookEventType: [String]] = [:]

    /// The subscribers of `endpoints`.
    package init(_ endpoints: [(id: String, events: Set<WebhookEventType>)]) {
        for endpoint in endpoints {
            for type in endpoint.events { byType[type, default: []].append(endpoint.id) }
        }
    }

    /// Whether no endpoint wants anything.
    package var isEmpty: Bool { byType.isEmpty }

    /// Whether an endpoint wants `type`.
    package func wants(_ type: WebhookEventType) -> Bool { byType[type] != nil }

    /// The endpoints that get `type`.
    package func endpoints(for type: WebhookEventType) -> [String] { byType[type] ?? [] }
}
