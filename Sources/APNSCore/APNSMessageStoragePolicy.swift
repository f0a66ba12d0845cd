/// A channel's message storage policy, fixed when the channel is created (Apple, "Sending channel
/// management requests to APNs"): whether APNs keeps the latest broadcast for devices that are offline.
public enum APNSMessageStoragePolicy: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `0`, No Message Stored: nothing is kept for offline devices; a higher publishing budget, for
    /// frequent updates such as sports scores. Broadcasts must use `apns-expiration: 0`.
    case noMessageStored = 0
    /// `1`, Most Recent Message Stored: the latest broadcast is kept (at most 8 hours, or until its
    /// `apns-expiration`), for infrequent updates such as flight status.
    case mostRecentMessageStored = 1

    /// The number APNs uses in `message-storage-policy`.
    public var description: String {
        String(rawValue)
    }
}
