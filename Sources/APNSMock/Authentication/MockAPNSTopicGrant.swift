public import APNSCore

/// The topics an authenticated sender may push to, and how a wrong topic is refused.
public struct MockAPNSTopicGrant: Sendable, Hashable {
    /// The bundle id (a certificate's subject UID).
    public var bundleID: String?
    /// Topics listed explicitly (Apple's multi-topic extension); empty means `bundleID` alone.
    public var topics: [String]

    /// A grant for `bundleID` and the listed `topics`.
    public init(bundleID: String?, topics: [String] = []) {
        self.bundleID = bundleID
        self.topics = topics
    }

    /// Every topic allowed.
    public var allowedTopics: [String] {
        topics.isEmpty ? (bundleID.map { [$0] } ?? []) : topics
    }

    /// The topic used when `apns-topic` is absent (Apple: the subject, unless the certificate lists several topics).
    public var defaultTopic: String? {
        topics.count <= 1 ? (bundleID ?? topics.first) : nil
    }

    /// nil when `topic` is allowed; TopicDisallowed when its base (suffix stripped) is this sender's
    /// but the topic is not listed; BadTopic otherwise.
    public func rejection(for topic: String) -> APNSRejectionReason? {
        let allowed = allowedTopics
        if allowed.contains(topic) { return nil }
        let base = MockAPNSTopicRules.baseTopic(of: topic)
        if base == bundleID || allowed.contains(base) { return .topicDisallowed }
        return .badTopic
    }
}
