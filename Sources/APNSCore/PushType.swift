/// The `apns-push-type` header: what kind of notification this is.
///
/// Unknown values pass through unchanged so a new Apple push type needs no library release.
public struct PushType: RawValueIdentified, Sendable {
    /// The header value, e.g. `alert`.
    public let rawValue: String

    /// What Apple requires appended to the bundle ID in `apns-topic`, or `nil` when the topic
    /// is the bare bundle ID (alert, background) or something else entirely (mdm: the certificate's UID).
    /// Worked out once here, as `validate()` reads it for every notification.
    public let topicSuffix: String?

    /// Wraps any header value, known or not.
    public init(rawValue: String) {
        self.rawValue = rawValue
        self.topicSuffix = Self.suffix(for: rawValue)
    }

    /// A notification that alerts, badges or plays a sound.
    public static let alert = PushType(rawValue: "alert")
    /// A silent notification that wakes the app in the background (priority 5 or 1 only).
    public static let background = PushType(rawValue: "background")
    /// A location query for a Location Push Service extension.
    public static let location = PushType(rawValue: "location")
    /// An incoming VoIP call for PushKit.
    public static let voip = PushType(rawValue: "voip")
    /// A watchOS complication update.
    public static let complication = PushType(rawValue: "complication")
    /// A File Provider extension change signal.
    public static let fileprovider = PushType(rawValue: "fileprovider")
    /// A device-management wake-up for an MDM server.
    public static let mdm = PushType(rawValue: "mdm")
    /// A Live Activity start, update or end.
    public static let liveactivity = PushType(rawValue: "liveactivity")
    /// A Push to Talk channel update.
    public static let pushtotalk = PushType(rawValue: "pushtotalk")
    /// A WidgetKit reload.
    public static let widgets = PushType(rawValue: "widgets")
    /// A Control Center control reload.
    public static let controls = PushType(rawValue: "controls")

    /// Every push type Apple documents.
    public static let all: [PushType] = [
        .alert, .background, .location, .voip, .complication, .fileprovider,
        .mdm, .liveactivity, .pushtotalk, .widgets, .controls,
    ]

    /// Whether Apple documents this push type.
    public var isKnown: Bool {
        Self.all.contains(self)
    }

    private static func suffix(for rawValue: String) -> String? {
        switch rawValue {
        case "voip": ".voip"
        case "complication": ".complication"
        case "fileprovider": ".pushkit.fileprovider"
        case "location": ".location-query"
        case "liveactivity": ".push-type.liveactivity"
        case "pushtotalk": ".voip-ptt"
        case "widgets": ".push-type.widgets"
        case "controls": ".push-type.controls"
        default: nil
        }
    }

    /// Whether a device registered under `topic` takes this push type: a suffixed type (`.voip`, ...) only
    /// topics with its suffix, the others only topics that carry no push type's suffix.
    public func suits(topic: String) -> Bool {
        if let topicSuffix { return topic.hasSuffix(topicSuffix) && topic.utf8.count > topicSuffix.utf8.count }
        return !Self.suffixes.contains { topic.hasSuffix($0) }
    }

    private static let suffixes = all.compactMap(\.topicSuffix)

    /// The largest payload APNs accepts for this type: 5120 bytes for VoIP, 4096 otherwise.
    public var maxPayloadBytes: Int {
        topicSuffix == ".voip" ? 5120 : 4096
    }

    /// The topic for `bundleID`: the bundle ID plus `topicSuffix`, if any.
    public func topic(forBundleID bundleID: String) -> String {
        guard let suffix = topicSuffix else { return bundleID }
        return bundleID + suffix
    }
}
