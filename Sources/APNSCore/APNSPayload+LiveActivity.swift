public import JSON

extension APNSPayload {
    /// The `aps` keys that start, update or end a Live Activity (push type `liveactivity`).
    public struct LiveActivity: Sendable, Hashable {
        /// `timestamp`: seconds since 1970 when this update was made; APNs drops older ones.
        public var timestamp: Int64
        /// `event`: start, update or end.
        public var event: Event
        /// `content-state`: the activity's dynamic content, matching its `ContentState` type.
        public var contentState: JSONValue?
        /// `dismissal-date`: seconds since 1970 when an ended activity leaves the Lock Screen.
        public var dismissalDate: Int64?
        /// `stale-date`: seconds since 1970 after which the content counts as outdated.
        public var staleDate: Int64?
        /// `attributes-type`: the `ActivityAttributes` type name (push-to-start only).
        public var attributesType: String?
        /// `attributes`: the static attributes (push-to-start only).
        public var attributes: JSONValue?
        /// `input-push-token: 1` when `true`: ask a push-to-start activity for its update token.
        public var inputPushToken: Bool
        /// `input-push-channel`: the broadcast channel a push-to-start activity listens on (iOS 18+; Apple,
        /// "Starting and updating Live Activities with ActivityKit push notifications").
        public var inputPushChannel: APNSChannelID?

        /// Creates Live Activity keys; `timestamp` and `event` are required by Apple.
        public init(
            timestamp: Int64,
            event: Event,
            contentState: JSONValue? = nil,
            dismissalDate: Int64? = nil,
            staleDate: Int64? = nil,
            attributesType: String? = nil,
            attributes: JSONValue? = nil,
            inputPushToken: Bool = false,
            inputPushChannel: APNSChannelID? = nil
        ) {
            self.timestamp = timestamp
            self.event = event
            self.contentState = contentState
            self.dismissalDate = dismissalDate
            self.staleDate = staleDate
            self.attributesType = attributesType
            self.attributes = attributes
            self.inputPushToken = inputPushToken
            self.inputPushChannel = inputPushChannel
        }

        /// Adds these keys to an `aps` dictionary.
        func add(to aps: inout [String: JSONValue]) {
            aps["timestamp"] = .int(timestamp)
            aps["event"] = .string(event.rawValue)
            aps["content-state"] = contentState
            aps["dismissal-date"] = dismissalDate.map(JSONValue.int)
            aps["stale-date"] = staleDate.map(JSONValue.int)
            aps["attributes-type"] = attributesType.map(JSONValue.string)
            aps["attributes"] = attributes
            if inputPushToken { aps["input-push-token"] = .int(1) }
            aps["input-push-channel"] = inputPushChannel.map { .string($0.rawValue) }
        }
    }
}

extension APNSPayload.LiveActivity {
    /// `aps.event`: what happens to the Live Activity.
    public struct Event: Hashable, Sendable, RawRepresentable {
        /// The JSON value, e.g. `update`.
        public let rawValue: String

        /// Wraps any value, known or not.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Start a new activity (push-to-start).
        public static let start = Event(rawValue: "start")
        /// Update a running activity.
        public static let update = Event(rawValue: "update")
        /// End a running activity.
        public static let end = Event(rawValue: "end")
    }
}
