public import APNSCore
public import Foundation

/// Apple's rule for dropping a device token after an APNs rejection, shared by both repositories.
public enum DeviceInvalidationRule {
    /// Whether an active device registered at `registeredAt` is invalidated by `reason` at `timestamp`.
    ///
    /// Which reasons invalidate is `APNSRejectionReason.invalidatesToken`; of those, `Unregistered` (410)
    /// does only if the token was not registered again after `timestamp` (`registeredAt <= timestamp`).
    public static func invalidates(reason: APNSRejectionReason, timestamp: Date, registeredAt: Date) -> Bool {
        guard reason.invalidatesToken else { return false }
        if reason == .unregistered { return registeredAt.storeMillis <= timestamp.storeMillis }
        return true
    }
}
