import APNSCore
import PushHTTP2

/// Builds the HTTP/2 requests of a batch of notifications, with the header fields a push's notifications
/// share made once: `apns-topic`, `apns-push-type`, `apns-priority` and `apns-expiration` go in one array
/// (`HTTP2Request.sharedHeaders`) that every following notification with the same four values reuses, so
/// only what differs per notification is made for each: `:path` (the token), `apns-id` and
/// `apns-collapse-id` (the service derives one per notification). The body is the notification's payload
/// array itself, so notifications that share one payload share its storage up to nghttp2.
///
/// A notification whose values differ from the previous one's starts a new array: notifications of
/// several pushes, topics or priorities in one batch each carry their own values.
struct APNSRequestFields {
    /// `:authority`.
    let authority: String
    private var topic: String?
    private var pushType = PushType.alert
    private var priority: Priority?
    private var expiration = APNSExpiration.none
    private var shared: [(name: String, value: String)] = []
    /// How many shared arrays were made (for tests).
    private(set) var builds = 0

    init(authority: String) {
        self.authority = authority
    }

    /// The request of `notification` (no `authorization` yet: the dispatcher adds it when it writes the
    /// request, after the notification's own fields).
    mutating func request(_ notification: APNSNotification) -> HTTP2Request {
        if !reusable(for: notification) { rebuild(from: notification) }
        var own: [(name: String, value: String)] = []
        // apns-collapse-id, apns-id, and room for authorization: no growth when it is added.
        own.reserveCapacity(3)
        if let collapseID = notification.collapseID { own.append((APNSHeader.collapseID, collapseID)) }
        if let apnsID = notification.apnsID { own.append((APNSHeader.id, apnsID)) }
        return HTTP2Request(
            authority: authority, path: notification.path, sharedHeaders: shared, headers: own, body: notification.payload)
    }

    /// Whether the shared fields made last are those of `notification`.
    private func reusable(for notification: APNSNotification) -> Bool {
        guard let topic else { return false }
        return notification.topic == topic && notification.pushType == pushType && notification.priority == priority
            && notification.expiration.epochSeconds == expiration.epochSeconds
    }

    private mutating func rebuild(from notification: APNSNotification) {
        topic = notification.topic
        pushType = notification.pushType
        priority = notification.priority
        expiration = notification.expiration
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(4)
        fields.append((APNSHeader.topic, notification.topic))
        fields.append((APNSHeader.pushType, notification.pushType.rawValue))
        if let priority = notification.priority { fields.append((APNSHeader.priority, priority.headerValue)) }
        if let value = notification.expiration.headerValue { fields.append((APNSHeader.expiration, value)) }
        shared = fields
        builds += 1
    }
}
