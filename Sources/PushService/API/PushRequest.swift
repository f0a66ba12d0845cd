package import APNSCore
import JSON

/// A validated `POST /v1/pushes` body: whom to send to and the one notification to send them.
package struct PushRequest: Sendable {
    /// Explicit tokens (normalized, de-duplicated) or a user's devices.
    package enum Target: Sendable, Equatable {
        /// Explicit tokens.
        case tokens([DeviceToken])
        /// Every device of one user.
        case user(String)
    }

    /// The most tokens one push may name.
    package static let maxTokens = 10_000

    /// Whom to send to.
    package var target: Target
    /// The topic, when it differs from the configured one.
    package var topic: String?
    /// `.production` or `.development`, when given.
    package var environment: APNSEnvironment?
    /// The `apns-push-type`.
    package var pushType: PushType
    /// The `apns-priority`, when given.
    package var priority: Priority?
    /// The `apns-expiration` in epoch seconds, when given.
    package var expiration: Int?
    /// The `apns-collapse-id`, when given.
    package var collapseID: String?
    /// The notification body: compact JSON with sorted keys.
    package var payload: [UInt8]

    /// The largest integer the API takes for counts and times (2^53 - 1, exact in every JSON reader).
    static let maxJSONInteger = 9_007_199_254_740_991

    /// The members a body may have.
    static let fields: Set<String> = [
        "tokens", "user_id", "payload", "alert", "badge", "sound", "category", "thread_id", "data",
        "content_available", "mutable_content", "push_type", "priority", "expiration", "collapse_id", "topic",
        "environment",
    ]

    /// Parses and checks everything that does not need the database; throws a 400 `APIError`.
    package init(_ body: JSONFields) throws(APIError) {
        try body.checkKnown(Self.fields)
        switch (body.has("tokens"), body.has("user_id")) {
        case (true, false):
            guard let list = try body.array("tokens"), !list.isEmpty else {
                throw .invalidField("tokens", "must be a non-empty array")
            }
            guard list.count <= Self.maxTokens else {
                throw .invalidField("tokens", "at most \(Self.maxTokens) tokens per push")
            }
            // Room for every token up front: each is hashed once, not again at every growth of the set.
            var seen = Set<DeviceToken>(minimumCapacity: list.count)
            var tokens: [DeviceToken] = []
            tokens.reserveCapacity(list.count)
            for (index, value) in list.enumerated() {
                guard let text = value.stringValue else { throw .invalidField("tokens[\(index)]", "must be a string") }
                let token = try PushAPI.deviceToken(text, field: "tokens[\(index)]")
                if seen.insert(token).inserted { tokens.append(token) }
            }
            target = .tokens(tokens)
        case (false, true):
            target = .user(try body.userID("user_id"))
        default:
            throw .badRequest("invalid_target", "give exactly one of tokens or user_id")
        }
        topic = try body.topic("topic")
        environment = try body.environment("environment")
        let typeName = try body.string("push_type") ?? "alert"
        pushType = PushType(rawValue: typeName)
        guard pushType.isKnown else { throw .badRequest("unknown_push_type", "unknown push_type \"\(typeName.prefix(40))\"") }
        if let value = try body.int("priority") {
            guard let priority = Priority(rawValue: value) else { throw .invalidField("priority", "must be 10, 5 or 1") }
            guard !(priority == .immediately && pushType == .background) else {
                throw .invalidField("priority", "10 is not allowed for a background push (use 5 or 1)")
            }
            // Apple: "Set the value for the apns-priority header field to 5 or 10" for Live Activity pushes.
            guard pushType != .liveactivity || APNSLiveActivityRules.priorities.contains(priority) else {
                throw .invalidField("priority", "a liveactivity push takes 5 or 10")
            }
            self.priority = priority
        }
        if let topic, let suffix = pushType.topicSuffix, !topic.hasSuffix(suffix) {
            throw .invalidField("topic", "a \(pushType.rawValue) push needs a topic ending in \(suffix)")
        }
        if let value = try body.int("expiration") {
            guard (0...Self.maxJSONInteger).contains(value) else {
                throw .invalidField("expiration", "must be epoch seconds from 0 to \(Self.maxJSONInteger)")
            }
            expiration = value
        }
        collapseID = try body.string("collapse_id", maxBytes: 64)
        if let collapseID, !APIFieldRules.isCollapseID(collapseID) {
            throw .invalidField("collapse_id", "must be 1-64 printable ASCII characters")
        }
        payload = try Self.payload(body)
    }

    private static let apsFields = [
        "alert", "badge", "sound", "category", "thread_id", "data", "content_available",
        "mutable_content",
    ]

    private static func payload(_ body: JSONFields) throws(APIError) -> [UInt8] {
        if body.has("payload") {
            if let clash = apsFields.first(where: { body.has($0) }) {
                throw .invalidField(clash, "cannot be combined with payload")
            }
            guard let raw = body.members["payload"], case .object = raw else {
                throw .invalidField("payload", "must be a JSON object")
            }
            return raw.serialized()
        }
        var aps: [String: JSONValue] = [:]
        if let alert = body.members["alert"], !alert.isNull {
            if case .string(let text) = alert {
                guard text.unicodeScalars.count <= 4096 else { throw .invalidField("alert", "longer than 4096 characters") }
                aps["alert"] = .string(text)
            } else {
                let fields = try JSONFields(alert, prefix: "alert.")
                try fields.checkKnown(["title", "subtitle", "body"])
                var members: [String: JSONValue] = [:]
                for key in ["title", "subtitle", "body"] {
                    if let text = try fields.string(key, maxBytes: 16_384, maxLength: 4096) { members[key] = .string(text) }
                }
                guard !members.isEmpty else { throw .invalidField("alert", "needs a title, subtitle or body") }
                aps["alert"] = .object(members)
            }
        }
        if let badge = try body.int("badge") {
            guard (0...maxJSONInteger).contains(badge) else { throw .invalidField("badge", "must be 0 to \(maxJSONInteger)") }
            aps["badge"] = .int(Int64(badge))
        }
        if let sound = try body.string("sound", maxBytes: 1024, maxLength: 256) { aps["sound"] = .string(sound) }
        if let category = try body.string("category", maxBytes: 1024, maxLength: 256) { aps["category"] = .string(category) }
        if let thread = try body.string("thread_id", maxBytes: 1024, maxLength: 256) { aps["thread-id"] = .string(thread) }
        if try body.bool("content_available") == true { aps["content-available"] = 1 }
        if try body.bool("mutable_content") == true { aps["mutable-content"] = 1 }
        guard !aps.isEmpty else {
            throw .badRequest("empty_payload", "give payload, or alert/badge/sound/content_available")
        }
        var root: [String: JSONValue] = [:]
        if let data = try body.object("data") {
            guard data.members["aps"] == nil else { throw .invalidField("data.aps", "is reserved") }
            root = data.members
        }
        root["aps"] = .object(aps)
        return JSONValue.object(root).serialized()
    }

    /// The topic for explicit tokens: the one given, or the default topic with the push type's suffix
    /// (`com.example.app` + `.voip` for a VoIP push).
    package func topic(default defaultTopic: String?) -> String? {
        if let topic { return topic }
        guard let defaultTopic else { return nil }
        guard let suffix = pushType.topicSuffix, !defaultTopic.hasSuffix(suffix) else { return defaultTopic }
        return defaultTopic + suffix
    }

    /// Checks the notification for `topic` as APNs would (suffix rules, priority, size): 413 for a payload
    /// over the push type's limit, 400 for the rest.
    package func validate(topic: String) throws(APIError) {
        let notification = APNSNotification(
            token: DeviceToken(bytes: [UInt8](repeating: 0, count: 32)), topic: topic, pushType: pushType,
            priority: priority,
            expiration: expiration.map { .at(epochSeconds: Int64($0)) } ?? .none,
            collapseID: collapseID, payload: payload)
        if let rejection = notification.validate() {
            if rejection.reason == .payloadTooLarge {
                throw APIError(
                    status: 413, code: "payload_too_large",
                    message:
                        "the payload is \(payload.count) bytes; a \(pushType.rawValue) push takes at most \(pushType.maxPayloadBytes)")
            }
            throw .badRequest("invalid_notification", "APNs would reject this notification: \(rejection.reason.rawValue)")
        }
    }
}
