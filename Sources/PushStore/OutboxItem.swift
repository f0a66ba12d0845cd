public import APNSCore
public import Foundation

/// One notification to one device token, or one broadcast to one channel, as kept in the durable outbox.
///
/// A row's `target` is a device or a broadcast channel (`topic` is then the app's bundle ID): both go
/// through the same claims, retries, back-off, expiry and fencing. The fields are typed as the APNs
/// request takes them; the stores map them to and from their columns.
public struct OutboxItem: Sendable, Equatable {
    /// The row id (a lowercase UUID by default).
    public var id: String
    /// Groups the rows created by one API call (e.g. one push to 1,000 tokens).
    public var pushID: String
    /// The device, or the broadcast channel, the row goes to.
    public var target: OutboxTarget
    /// The `apns-topic`.
    public var topic: String
    /// The `apns-push-type`.
    public var pushType: PushType
    /// The `apns-priority`, or nil to let APNs choose.
    public var priority: Priority?
    /// The `apns-expiration`: `.immediately` means "deliver once or drop"; `.none` sends no header.
    public var expiration: APNSExpiration
    /// The `apns-collapse-id`.
    public var collapseID: String?
    /// The `apns-id` to send (APNs generates one when nil).
    public var apnsID: APNSID?
    /// The JSON payload bytes.
    public var payload: [UInt8]
    /// Which APNs service to use: `.production` or `.development`.
    public var environment: APNSEnvironment
    /// The row's state.
    public var state: OutboxState
    /// Send attempts so far (counted when claimed).
    public var attempts: Int
    /// When the row may next be claimed.
    public var nextAttemptAt: Date
    /// The last HTTP status seen (200 when accepted).
    public var lastStatus: Int?
    /// Why the row last failed to go out: APNs' reason, no answer, or its expiration.
    public var lastReason: OutboxReason?
    /// The `apns-unique-id` APNs returned (development only).
    public var apnsUniqueID: String?
    /// When the row was enqueued.
    public var createdAt: Date
    /// When the row last changed.
    public var updatedAt: Date
    /// Set on a claimed row by stores that key claims (`OutboxReceipt`); empty otherwise. Not part of the
    /// row's value: receipts compare equal.
    public var receipt = OutboxReceipt.none

    /// A new queued row to `target`, due at `now`.
    public init(
        id: String = OutboxID.make(), pushID: String, target: OutboxTarget, topic: String,
        pushType: PushType, payload: [UInt8], environment: APNSEnvironment, priority: Priority? = nil,
        expiration: APNSExpiration = .none, collapseID: String? = nil, apnsID: APNSID? = nil, now: Date
    ) {
        let now = now.storeNormalized
        self.id = id
        self.pushID = pushID
        self.target = target
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.payload = payload
        self.environment = environment
        self.state = .queued
        self.attempts = 0
        self.nextAttemptAt = now
        self.lastStatus = nil
        self.lastReason = nil
        self.apnsUniqueID = nil
        self.createdAt = now
        self.updatedAt = now
    }

    /// A new queued row to the device `token`, due at `now`.
    public init(
        id: String = OutboxID.make(), pushID: String, token: DeviceToken, topic: String,
        pushType: PushType, payload: [UInt8], environment: APNSEnvironment, priority: Priority? = nil,
        expiration: APNSExpiration = .none, collapseID: String? = nil, apnsID: APNSID? = nil, now: Date
    ) {
        self.init(
            id: id, pushID: pushID, target: .device(token), topic: topic, pushType: pushType, payload: payload,
            environment: environment, priority: priority, expiration: expiration, collapseID: collapseID, apnsID: apnsID,
            now: now)
    }

    /// A new queued broadcast row to `channelID` of the app `bundleID`, due at `now`.
    public static func broadcast(
        id: String = OutboxID.make(), pushID: String, channelID: APNSChannelID, bundleID: String, payload: [UInt8],
        environment: APNSEnvironment, priority: Priority, expiration: APNSExpiration, apnsID: APNSID? = nil, now: Date
    ) -> OutboxItem {
        OutboxItem(
            id: id, pushID: pushID, target: .channel(channelID), topic: bundleID, pushType: .liveactivity,
            payload: payload, environment: environment, priority: priority, expiration: expiration, apnsID: apnsID,
            now: now)
    }

    /// The broadcast request of a channel row (nil for a device row): `apns-priority` and
    /// `apns-expiration` are required for broadcasts, so a missing one is sent as 10 / 0.
    public var broadcast: APNSBroadcast? {
        guard case .channel(let channelID) = target else { return nil }
        return APNSBroadcast(
            bundleID: topic, channelID: channelID, pushType: pushType, priority: priority ?? .immediately,
            expiration: expiration == .none ? .immediately : expiration, requestID: apnsID?.rawValue, payload: payload)
    }

    /// The APNs request for this row (a channel row's has no token: see `broadcast`): typed fields go
    /// straight across, nothing is parsed again.
    public var notification: APNSNotification {
        APNSNotification(
            token: target.deviceToken ?? DeviceToken(storedHex: ""), topic: topic, pushType: pushType, priority: priority,
            expiration: expiration, collapseID: collapseID, id: apnsID, payload: payload)
    }

    /// Throws `PushStoreError` unless the row can be stored.
    package func validate() throws(PushStoreError) {
        try StoreValidation.required(id, field: "id", max: 128)
        try StoreValidation.required(pushID, field: "push_id", max: 128)
        try StoreValidation.required(topic, field: "topic", max: 255)
        guard pushType.isKnown else { throw .invalidField(field: "push_type", reason: "unknown push type \(pushType.rawValue.prefix(32))") }
        try StoreValidation.environment(environment.name)
        try StoreValidation.optional(collapseID, field: "collapse_id", max: 64)
        guard !payload.isEmpty else { throw .invalidField(field: "payload", reason: "must not be empty") }
        if case .channel(let channelID) = target {
            // Any length (Apple: don't assume the channel id's size).
            guard channelID.isWellFormed else { throw .invalidField(field: "channel_id", reason: "must be base64") }
        }
    }

    /// Whether the row must end as `expired` instead of being sent at `now`: its expiration passed,
    /// or it has expiration 0 ("deliver once or drop") and was already tried once.
    package func isExpired(at now: Date) -> Bool {
        guard let seconds = expiration.epochSeconds else { return false }
        if seconds == 0 { return attempts > 0 }
        // Whole seconds, as in SQL: a row expiring at second E may still go out during second E.
        return seconds < Int64(now.timeIntervalSince1970.rounded(.down))
    }
}
