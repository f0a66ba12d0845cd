import APNSCore

/// Apple's topic suffixes (`.voip`, `.complication`, `.pushkit.fileprovider`, `.location-query`,
/// `.push-type.liveactivity`, `.voip-ptt`, `.push-type.widgets`, `.push-type.controls`).
enum MockAPNSTopicRules {
    /// Known suffixes, longest first.
    static let suffixes: [String] = PushType.all.compactMap(\.topicSuffix).sorted { $0.count > $1.count }

    /// The known suffix `topic` ends with, if any.
    static func suffix(of topic: String) -> String? {
        suffixes.first { topic.hasSuffix($0) && topic.count > $0.count }
    }

    /// `topic` without its known suffix.
    static func baseTopic(of topic: String) -> String {
        guard let suffix = suffix(of: topic) else { return topic }
        return String(topic.dropLast(suffix.count))
    }

    /// The push type a topic implies when `apns-push-type` is absent: the one owning its suffix, else alert.
    static func impliedPushType(of topic: String) -> PushType {
        guard let suffix = suffix(of: topic) else { return .alert }
        return PushType.all.first { $0.topicSuffix == suffix } ?? .alert
    }
}
