public import APNSCore
public import Foundation

/// A device token registered for a user and an app topic.
public struct DeviceRecord: Sendable, Equatable {
    /// The device token.
    public var token: DeviceToken
    /// The APNs topic (bundle id, possibly with a suffix such as `.voip`).
    public var topic: String
    /// The owning user's id.
    public var userID: String
    /// `.production` or `.development`.
    public var environment: APNSEnvironment
    /// When the token was last registered (re-registration moves it forward).
    public var registeredAt: Date
    /// When the device was last seen registering.
    public var lastSeen: Date
    /// When the token was invalidated, or nil while active.
    public var invalidatedAt: Date?
    /// The APNs reason that invalidated it (e.g. `.unregistered`), or nil while active.
    public var invalidReason: APNSRejectionReason?

    /// True while the token may be pushed to.
    public var isActive: Bool { invalidatedAt == nil }

    /// Creates a record.
    public init(
        token: DeviceToken, topic: String, userID: String, environment: APNSEnvironment, registeredAt: Date,
        lastSeen: Date, invalidatedAt: Date? = nil, invalidReason: APNSRejectionReason? = nil
    ) {
        self.token = token
        self.topic = topic
        self.userID = userID
        self.environment = environment
        self.registeredAt = registeredAt
        self.lastSeen = lastSeen
        self.invalidatedAt = invalidatedAt
        self.invalidReason = invalidReason
    }
}
