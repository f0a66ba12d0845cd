public import Foundation

/// One notification the embedded mock APNs decided, as the console's mock page lists it.
public struct ConsoleMockRecord: Sendable {
    /// The app whose mock received it.
    public var app: String
    /// The device token (or broadcast path).
    public var token: String
    /// The topic in effect.
    public var topic: String?
    /// The `apns-push-type` header.
    public var pushType: String?
    /// The status answered.
    public var status: Int
    /// The reason answered, when rejected.
    public var reason: String?
    /// When it was decided.
    public var time: Date

    /// A record with the given parts.
    public init(app: String, token: String, topic: String?, pushType: String?, status: Int, reason: String?, time: Date) {
        self.app = app
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.status = status
        self.reason = reason
        self.time = time
    }
}
