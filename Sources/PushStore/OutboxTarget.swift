public import APNSCore

/// Where an outbox row goes: one device, or one broadcast channel of the row's app (`OutboxItem.topic`
/// is then the app's bundle ID). Both go through the same claims, retries, back-off, expiry and fencing.
public enum OutboxTarget: Sendable, Hashable, CustomStringConvertible {
    /// A notification to this device token.
    case device(DeviceToken)
    /// A broadcast on this channel.
    case channel(APNSChannelID)

    /// The device token of a device row, nil for a channel row.
    public var deviceToken: DeviceToken? {
        if case .device(let token) = self { return token }
        return nil
    }

    /// The channel of a channel row, nil for a device row.
    public var channelID: APNSChannelID? {
        if case .channel(let channelID) = self { return channelID }
        return nil
    }

    /// Whether this is a channel (broadcast) target.
    public var isChannel: Bool {
        if case .channel = self { return true }
        return false
    }

    /// `device <hex>` or `channel <id>`.
    public var description: String {
        switch self {
        case .device(let token): "device \(token.hex)"
        case .channel(let channelID): "channel \(channelID.rawValue)"
        }
    }
}
