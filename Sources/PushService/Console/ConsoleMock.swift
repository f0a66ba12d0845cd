public import Foundation
import PushSync

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

/// What the console may show of the embedded mock APNs: its control API's address per app, and what it
/// received (the mocks keep their most recent records).
public struct ConsoleMockView: Sendable {
    /// Each app's mock control API base URL.
    public var controls: [(app: String, url: String)]
    /// Reads the records of every mock, oldest first.
    public var records: @Sendable () -> [ConsoleMockRecord]

    /// A view with `controls` reading `records`.
    public init(controls: [(app: String, url: String)], records: @escaping @Sendable () -> [ConsoleMockRecord]) {
        self.controls = controls
        self.records = records
    }
}

/// Holds the mock view once the launcher has one (set after the server starts).
final class ConsoleMockBox: Sendable {
    private let current = PThreadLock<ConsoleMockView?>(nil)

    var view: ConsoleMockView? { current.withLock { $0 } }

    func set(_ view: ConsoleMockView?) {
        current.withLock { $0 = view }
    }
}
