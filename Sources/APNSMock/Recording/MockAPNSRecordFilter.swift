/// Selects records by device token, topic and broadcast channel (nil: any), so concurrent tests can
/// each look at their own tokens or channels.
public struct MockAPNSRecordFilter: Sendable, Hashable {
    /// The device token (compared case-insensitively).
    public var token: String?
    /// The topic in effect.
    public var topic: String?
    /// The broadcast channel (`apns-channel-id`); a device push never matches one.
    public var channelID: String?

    /// A filter with the given criteria.
    public init(token: String? = nil, topic: String? = nil, channelID: String? = nil) {
        self.token = token?.lowercased()
        self.topic = topic
        self.channelID = channelID
    }

    /// Every record.
    public static let all = MockAPNSRecordFilter()

    /// Whether `record` passes.
    public func matches(_ record: MockAPNSRecord) -> Bool {
        if let token, record.token != token { return false }
        if let topic, record.topic != topic { return false }
        if let channelID, record.channelID != channelID { return false }
        return true
    }
}
