import APNSCore
import Foundation
import JSON
import PushHTTP
import PushHTTP1
import PushStore

extension PushAPI {
    /// `POST /v1/devices`: registers (or re-registers) a device token for a user (201).
    func registerDevice(_ request: APIRequest) async throws -> HTTPResponse {
        let registration = try DeviceRegistrationRequest(try request.jsonBody())
        guard let topic = registration.topic ?? configuration.defaultTopic, !topic.isEmpty else {
            throw APIError.invalidField("topic", "is required (no default topic is configured)")
        }
        try checkServed(topic)
        if let kind = registration.activityKind {
            let record = ActivityTokenRecord(
                token: registration.token, topic: topic, userID: registration.userID, environment: registration.environment,
                kind: kind, registeredAt: Date())
            try await repositories.activityTokens.register(record)
            return .json(status: 201, Self.activityTokenJSON(record))
        }
        let device = try await repositories.devices.register(
            token: registration.token, topic: topic, userID: registration.userID,
            environment: registration.environment, now: Date())
        return .json(status: 201, RecordJSON.device(device))
    }

    /// `DELETE /v1/devices/{token}`: removes every registration of the token, APNs device tokens and
    /// ActivityKit tokens alike, since `POST /v1/devices` registers both (204, or 404).
    func removeDevice(_ request: APIRequest) async throws -> HTTPResponse {
        let token = try request.deviceToken("token")
        let devices = try await repositories.devices.remove(token: token)
        let activityTokens = try await repositories.activityTokens.remove(token: token)
        guard devices + activityTokens > 0 else {
            throw APIError.notFound("unknown_device", "no device with this token")
        }
        return .empty(status: 204)
    }

    /// `GET /v1/users/{id}/devices`: every registration of the user, invalidated ones included, then its
    /// ActivityKit tokens (retired ones included).
    func listDevices(_ request: APIRequest) async throws -> HTTPResponse {
        let userID = request.parameter("id")
        let devices = try await repositories.devices.devices(forUser: userID, includeInvalidated: true)
        // Then the user's ActivityKit tokens (push-to-start and Live Activity update tokens), with their kind.
        let activityTokens = try await repositories.activityTokens.tokens(userID: userID)
        return .json(status: 200, ["devices": .array(devices.map(RecordJSON.device) + activityTokens.map(Self.activityTokenJSON))])
    }

    /// An ActivityKit token as `POST /v1/devices` answers it (the device fields plus its kind).
    static func activityTokenJSON(_ record: ActivityTokenRecord) -> JSONValue {
        var members: [String: JSONValue] = [
            "token": .string(record.token.hex), "topic": .string(record.topic), "user_id": .string(record.userID),
            "environment": .string(record.environment.name), "registered_at": RecordJSON.time(record.registeredAt),
            "active": .bool(record.isActive(at: Date())), "invalidated_at": RecordJSON.time(record.retiredAt),
            "invalid_reason": .null, "kind": .string(record.kind.name),
        ]
        if let type = record.attributesType { members["attributes_type"] = .string(type) }
        if let id = record.activityID { members["activity_id"] = .string(id) }
        return .object(members)
    }

    /// 422 `unknown_topic` when no configured app serves `topic` (checked before anything is stored).
    func checkServed(_ topic: String) throws(APIError) {
        guard senders.index(forTopic: topic) == nil else { return }
        throw APIError(
            status: 422, code: "unknown_topic",
            message: "no app serves topic \(topic.prefix(256)) (configured apps: \(senders.apps.map(\.name).joined(separator: ", ")))")
    }

    /// The token in `text` (an even number, 64-200, of hex digits), or 400.
    static func deviceToken(_ text: String, field: String) throws(APIError) -> DeviceToken {
        guard APIFieldRules.isHexToken(text) else {
            throw APIError.invalidField(field, "not a device token (an even number, 64-200, of hex digits)")
        }
        do {
            return try DeviceToken(text)
        } catch {
            throw APIError.invalidField(field, "not a device token (\(error.message))")
        }
    }
}
