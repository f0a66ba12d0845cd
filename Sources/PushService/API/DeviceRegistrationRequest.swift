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
