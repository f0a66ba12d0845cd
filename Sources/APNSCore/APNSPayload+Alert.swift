public import JSON

extension APNSPayload {
    /// `aps.alert`: either a plain string or a dictionary.
    public enum Alert: Sendable, Hashable {
        /// `"alert": "text"`: the body only.
        case text(String)
        /// `"alert": { … }`: title, subtitle, body and localization keys.
        case content(AlertContent)
    }

    /// The dictionary form of `aps.alert`; `nil` members are omitted.
    public struct AlertContent: Sendable, Hashable {
        /// `title`.
        public var title: String?
        /// `subtitle`.
        public var subtitle: String?
        /// `body`.
        public var body: String?
        /// `launch-image`: the launch image file to show when the app opens from this alert.
        public var launchImage: String?
        /// `title-loc-key`: a localized-string key for the title.
        public var titleLocKey: String?
        /// `title-loc-args`: arguments for `title-loc-key`.
        public var titleLocArgs: [String]?
        /// `subtitle-loc-key`: a localized-string key for the subtitle.
        public var subtitleLocKey: String?
        /// `subtitle-loc-args`: arguments for `subtitle-loc-key`.
        public var subtitleLocArgs: [String]?
        /// `loc-key`: a localized-string key for the body.
        public var locKey: String?
        /// `loc-args`: arguments for `loc-key`.
        public var locArgs: [String]?
        /// `sound` inside the alert: where a Live Activity push names its alert sound (every sample of
        /// Apple's "Starting and updating Live Activities with ActivityKit push notifications" nests it
        /// there; other pushes use `aps.sound`).
        public var sound: String?

        /// Creates alert content; every argument is optional.
        public init(
            title: String? = nil,
            subtitle: String? = nil,
            body: String? = nil,
            launchImage: String? = nil,
            titleLocKey: String? = nil,
            titleLocArgs: [String]? = nil,
            subtitleLocKey: String? = nil,
            subtitleLocArgs: [String]? = nil,
            locKey: String? = nil,
            locArgs: [String]? = nil,
            sound: String? = nil
        ) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
            self.launchImage = launchImage
            self.titleLocKey = titleLocKey
            self.titleLocArgs = titleLocArgs
            self.subtitleLocKey = subtitleLocKey
            self.subtitleLocArgs = subtitleLocArgs
            self.locKey = locKey
            self.locArgs = locArgs
            self.sound = sound
        }

        /// The JSON dictionary, with only the members that are set.
        public var jsonValue: JSONValue {
            // Only the fields that are set are stored (see `APNSPayload.jsonValue`).
            var members: [String: JSONValue] = [:]
            if let title { members["title"] = .string(title) }
            if let subtitle { members["subtitle"] = .string(subtitle) }
            if let body { members["body"] = .string(body) }
            if let launchImage { members["launch-image"] = .string(launchImage) }
            if let titleLocKey { members["title-loc-key"] = .string(titleLocKey) }
            if let titleLocArgs { members["title-loc-args"] = .array(titleLocArgs.map(JSONValue.string)) }
            if let subtitleLocKey { members["subtitle-loc-key"] = .string(subtitleLocKey) }
            if let subtitleLocArgs { members["subtitle-loc-args"] = .array(subtitleLocArgs.map(JSONValue.string)) }
            if let locKey { members["loc-key"] = .string(locKey) }
            if let locArgs { members["loc-args"] = .array(locArgs.map(JSONValue.string)) }
            if let sound { members["sound"] = .string(sound) }
            return .object(members)
        }
    }
}

extension APNSPayload.Alert {
    /// The JSON form: a string or a dictionary.
    public var jsonValue: JSONValue {
        switch self {
        case .text(let text): .string(text)
        case .content(let content): content.jsonValue
        }
    }
}
