import APNS
import APNSCore

/// The code under test: sends a walk reminder to each device of a user and forgets tokens APNs
/// says are gone (410 Unregistered / ExpiredToken, 400 BadDeviceToken).
public actor WalkReminderSender {
    /// What one round of reminders did.
    public struct Report: Sendable, Equatable {
        /// Tokens APNs accepted.
        public var delivered: [String] = []
        /// Tokens removed from the store because APNs said they are gone.
        public var removed: [String] = []
        /// Tokens that failed for another reason (kept, to try again later).
        public var failed: [String] = []

        /// A report with the given lists.
        public init(delivered: [String] = [], removed: [String] = [], failed: [String] = []) {
            self.delivered = delivered
            self.removed = removed
            self.failed = failed
        }
    }

    private let client: APNSClient
    private let topic: String
    private var tokens: [String: [String]]

    /// A sender using `client` for `topic`, with the given user → device tokens.
    public init(client: APNSClient, topic: String, tokens: [String: [String]]) {
        self.client = client
        self.topic = topic
        self.tokens = tokens
    }

    /// The tokens stored for `user`.
    public func tokens(of user: String) -> [String] {
        tokens[user] ?? []
    }

    /// Sends "time for a walk with DOG" to every device of `user`.
    public func remind(_ user: String, dog: String) async throws -> Report {
        var report = Report()
        var payload = APNSPayload.alert("Time for a walk with \(dog)")
        payload.category = "WALK_REMINDER"
        for hex in tokens[user] ?? [] {
            let notification = APNSNotification(token: try DeviceToken(hex), topic: topic, payload: payload)
            switch try await client.send(notification) {
            case .accepted:
                report.delivered.append(hex)
            case .rejected(let rejection) where [.unregistered, .expiredToken, .badDeviceToken].contains(rejection.reason):
                tokens[user]?.removeAll { $0 == hex }
                report.removed.append(hex)
            case .rejected:
                report.failed.append(hex)
            }
        }
        return report
    }
}
