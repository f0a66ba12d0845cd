/// Selects records by device token and topic (nil: any), so concurrent tests can each look at
/// their own tokens.
public struct MockAPNSRecordFilter: Sendable, Hashable {
    /// The device token (compared case-insensitively).
    public var token: String?
    /// The topic in effect.
    public var topic: String?

    /// A filter with the given criteria.
    public init(token: String? = nil, topic: String? = nil) {
        self.token = token?.lowercased()
        self.topic = topic
    }

    /// Every record.
    public static let all = MockAPNSRecordFilter()

    /// Whether `record` passes.
    public func matches(_ record: MockAPNSRecord) -> Bool {
        if let token, record.token != token { return false }
        if let topic, record.topic != topic { return false }
        return true
    }
}
