package import APNSCore
package import PushStore

/// A validated `POST /v1/devices` body. The default topic is applied by the handler, not here.
package struct DeviceRegistrationRequest: Sendable, Equatable {
    /// The token.
    package var token: DeviceToken
    /// The owning user.
    package var userID: String
    /// The topic given in the body, if any.
    package var topic: String?
    /// `.production` or `.development`.
    package var environment: APNSEnvironment
    /// An ActivityKit token (`kind` `push_to_start` or `live_activity`), or nil for the device's APNs token.
    package var activityKind: ActivityTokenKind?

    /// Parses and checks the body; throws a 400 `APIError`.
    package init(_ body: JSONFields) throws(APIError) {
        try body.checkKnown(["token", "user_id", "topic", "environment", "kind", "attributes_type", "activity_id"])
        activityKind = try Self.kind(body)
        token = try PushAPI.deviceToken(try body.requiredString("token", maxBytes: 400), field: "token")
        userID = try body.userID("user_id")
        topic = try body.topic("topic")
        guard let environment = try body.environment("environment") else { throw .invalidField("environment", "is required") }
        self.environment = environment
    }
}

extension DeviceRegistrationRequest {
    /// `kind` with the field it needs: `apns` (default), `push_to_start` with `attributes_type`,
    /// `live_activity` with `activity_id`.
    private static func kind(_ body: JSONFields) throws(APIError) -> ActivityTokenKind? {
        switch try body.string("kind") ?? "apns" {
        case "apns":
            guard !body.has("attributes_type"), !body.has("activity_id") else {
                throw .invalidField("kind", "attributes_type and activity_id need kind push_to_start or live_activity")
            }
            return nil
        case "push_to_start":
            guard !body.has("activity_id") else { throw .invalidField("activity_id", "goes with kind live_activity") }
            guard let type = try body.string("attributes_type", maxBytes: 512, maxLength: 128), !type.isEmpty else {
                throw .invalidField("attributes_type", "is required with kind push_to_start and must not be empty")
            }
            return .pushToStart(attributesType: type)
        case "live_activity":
            guard !body.has("attributes_type") else { throw .invalidField("attributes_type", "goes with kind push_to_start") }
            let id = try body.requiredString("activity_id", maxBytes: 128)
            if let problem = PathParameter.activityID.problem(id) { throw .invalidField("activity_id", problem) }
            return .update(activityID: id)
        default:
            throw .invalidField("kind", "must be apns, push_to_start or live_activity")
        }
    }
}

/// A validated `POST /v1/drops` body.
package struct DropReportBody: Sendable, Equatable {
    /// The reporting user.
    package var userID: String
    /// The user the phone was dropped onto.
    package var peerID: String
    /// The measured distance in metres.
    package var distance: Double
    /// The direction to the peer, when the phone measured one.
    package var direction: SIMD3<Double>?

    /// Parses and checks the body; throws a 400 `APIError`.
    package init(_ body: JSONFields) throws(APIError) {
        try body.checkKnown(["user_id", "peer_id", "distance_m", "direction"])
        userID = try body.userID("user_id")
        peerID = try body.userID("peer_id")
        distance = try body.requiredDouble("distance_m")
        guard let vector = try body.object("direction") else { return }
        try vector.checkKnown(["x", "y", "z"])
        func component(_ key: String) throws(APIError) -> Double {
            guard let value = try vector.double(key) else { throw .invalidField("direction.\(key)", "is required") }
            return value
        }
        direction = SIMD3(try component("x"), try component("y"), try component("z"))
    }
}

extension ProfileCard {
    /// The card in a `PUT /v1/users/{id}` body; throws a 400 `APIError` for unknown or mistyped
    /// members. Limits are checked by `validate()`, as the store does.
    package init(_ body: JSONFields) throws(APIError) {
        try body.checkKnown(["name", "dog_name", "breed", "age", "bio", "image_url"])
        self.init(
            name: try body.requiredString("name"), dogName: try body.requiredString("dog_name"),
            breed: try body.string("breed", allowNull: true), age: try body.int("age", allowNull: true),
            bio: try body.string("bio", allowNull: true), imageURL: try body.string("image_url", allowNull: true))
    }
}

extension JSONFields {
    /// A required user id (`^[A-Za-z0-9_.-]{1,64}$`).
    func userID(_ key: String) throws(APIError) -> String {
        let value = try requiredString(key, maxBytes: 64)
        guard APIFieldRules.isUserID(value) else { throw .invalidField(prefix + key, "must be 1-64 characters of A-Z a-z 0-9 _ . -") }
        return value
    }

    /// An optional APNs environment: `"production"` or `"development"`.
    func environment(_ key: String) throws(APIError) -> APNSEnvironment? {
        guard let name = try string(key) else { return nil }
        guard let environment = APNSEnvironment(named: name) else {
            throw .invalidField(prefix + key, "must be \"production\" or \"development\"")
        }
        return environment
    }

    /// An optional apns-topic: a bundle id, with the push type's suffix where one applies.
    func topic(_ key: String) throws(APIError) -> String? {
        guard let value = try string(key, maxBytes: 255) else { return nil }
        guard APIFieldRules.isTopic(value) else {
            throw .invalidField(prefix + key, "must be a bundle id: labels of A-Z a-z 0-9 - joined by dots, at most 255 bytes")
        }
        return value
    }
}
