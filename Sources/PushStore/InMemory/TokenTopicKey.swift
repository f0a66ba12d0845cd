import APNSCore

/// What names one device or Live Activity token in the in-memory repositories: a token of one app
/// (the primary key `(token, topic)` of `devices` and `activity_tokens`).
struct TokenTopicKey: Hashable, Sendable {
    var token: DeviceToken
    var topic: String
}
