import Foundation

/// Apple's rules for dropping a device token after an APNs rejection, shared by both repositories.
public enum DeviceInvalidationRule {
    /// Reasons that invalidate a token at once, whatever its registration time.
    public static let immediateReasons: Set<String> = ["BadDeviceToken", "DeviceTokenNotForTopic", "ExpiredToken"]
    /// The 410 reason that carries the time APNs learned the token was invalid.
    public static let unregistered = "Unregistered"

    /// Whether an active device registered at `registeredAt` is invalidated by `reason` at `timestamp`.
    ///
    /// "Unregistered" invalidates only if the token was not registered again after `timestamp`
    /// (`registeredAt <= timestamp`); the immediate reasons always do; any other reason never does.
    public static func invalidates(reason: String, timestamp: Date, registeredAt: Date) -> Bool {
        if immediateReasons.contains(reason) { return true }
        if reason == unregistered { return registeredAt.storeMillis <= timestamp.storeMillis }
        return false
    }
}
