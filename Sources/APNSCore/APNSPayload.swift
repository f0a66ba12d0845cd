public import JSON

/// Builds the JSON body of a notification: every `aps` key Apple documents plus custom top-level keys.
///
/// Set the properties you need (or pass them to `init`), then call `encoded()`. Keys left `nil`
/// (or `false`) are omitted. Output is deterministic: keys sorted, so the same payload is the same bytes.
public struct APNSPayload: Sendable, Hashable {
    /// `aps.alert`: a plain string or a dictionary of title, body and localization keys.
    public var alert: Alert?
    /// `aps.badge`: the number on the app icon; 0 removes it.
    public var badge: Int?
    /// `aps.sound`: a sound file name, or a critical-alert sound dictionary.
    public var sound: Sound?
    /// `aps.content-available: 1` when `true`: wake the app in the background.
    public var contentAvailable: Bool
    /// `aps.mutable-content: 1` when `true`: let a notification service extension modify it.
    public var mutableContent: Bool
    /// `aps.category`: the notification category (actions) the app registered.
    public var category: String?
    /// `aps.thread-id`: groups notifications in Notification Center.
    public var threadID: String?
    /// `aps.target-content-id`: the window or content to bring forward.
    public var targetContentID: String?
    /// `aps.interruption-level`: passive, active, time-sensitive or critical.
    public var interruptionLevel: InterruptionLevel?
    /// `aps.relevance-score`: 0 to 1, for notification summaries and Live Activity ranking.
    public var relevanceScore: Double?
    /// `aps.filter-criteria`: the Focus filter this notification matches.
    public var filterCriteria: String?
    /// `aps.content-changed: true` when `true`: the widgets/controls reload signal.
    public var contentChanged: Bool
    /// Live Activity keys (`timestamp`, `event`, `content-state`, …), when this updates a Live Activity.
    public var liveActivity: LiveActivity?
    /// Custom top-level keys beside `aps`; a custom key named `aps` is ignored.
    public var custom: [String: JSONValue]

    /// Creates a payload; every argument is optional.
    public init(
        alert: Alert? = nil,
        badge: Int? = nil,
        sound: Sound? = nil,
        contentAvailable: Bool = false,
        mutableContent: Bool = false,
        category: String? = nil,
        threadID: String? = nil,
        targetContentID: String? = nil,
        interruptionLevel: InterruptionLevel? = nil,
        relevanceScore: Double? = nil,
        filterCriteria: String? = nil,
        contentChanged: Bool = false,
        liveActivity: LiveActivity? = nil,
        custom: [String: JSONValue] = [:]
    ) {
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.category = category
        self.threadID = threadID
        self.targetContentID = targetContentID
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.filterCriteria = filterCriteria
        self.contentChanged = contentChanged
        self.liveActivity = liveActivity
        self.custom = custom
    }

    /// A payload with a plain-text alert.
    public static func alert(_ text: String) -> APNSPayload {
        APNSPayload(alert: .text(text))
    }

    /// A silent background payload (`content-available: 1`) with optional custom keys.
    public static func background(custom: [String: JSONValue] = [:]) -> APNSPayload {
        APNSPayload(contentAvailable: true, custom: custom)
    }

    /// Returns a copy with the custom top-level `key` set to `value`.
    public func adding(_ key: String, _ value: JSONValue) -> APNSPayload {
        var copy = self
        copy.custom[key] = value
        return copy
    }
}
