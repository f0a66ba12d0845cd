import APNS
import APNSCore
import Foundation
import JSON
import PushHTTP
import PushHTTP1
import PushStore

extension PushAPI {
    /// `POST /v1/channels`: creates a broadcast channel with Apple's channel management API (the
    /// environment's channel manager), then stores it (201).
    func createChannel(_ request: APIRequest) async throws -> HTTPResponse {
        let body = try request.jsonBody()
        try body.checkKnown(["topic", "environment", "message_storage_policy"])
        let topic = try channelTopic(try body.topic("topic"))
        guard let environment = try body.environment("environment") else { throw APIError.invalidField("environment", "is required") }
        var policy = APNSMessageStoragePolicy.noMessageStored
        if let value = try body.int("message_storage_policy") {
            guard let parsed = APNSMessageStoragePolicy(rawValue: value) else {
                throw APIError.invalidField("message_storage_policy", "must be 0 (no message stored) or 1 (most recent message stored)")
            }
            policy = parsed
        }
        let manager = try channelManager(environment, topic: topic)
        let created: APNSCreatedChannel
        do {
            created = try await manager.createChannel(bundleID: topic, storagePolicy: policy, requestID: nil)
        } catch {
            throw Self.apiError(error)
        }
        let record = ChannelRecord(
            id: created.channelID, topic: topic, environment: environment, storagePolicy: policy, createdAt: Date())
        try await repositories.channels.add(record)
        logger.info("channel.created", [("topic", topic), ("environment", environment.name), ("channel_id", created.channelID.rawValue)])
        return .json(status: 201, Self.channelJSON(record))
    }

    /// `GET /v1/channels?topic=&environment=`: the stored channels of a topic, oldest first.
    func listChannels(_ request: APIRequest) async throws -> HTTPResponse {
        var topic = configuration.defaultTopic
        if let value = request.http.queryValue("topic") {
            guard APIFieldRules.isTopic(value) else { throw APIError.badRequest("invalid_query", "topic must be a bundle id") }
            topic = value
        }
        let resolved = try channelTopic(topic)
        var environment: APNSEnvironment?
        if let value = request.http.queryValue("environment") {
            guard let parsed = APNSEnvironment(named: value) else {
                throw APIError.badRequest("invalid_query", "environment must be production or development")
            }
            environment = parsed
        }
        let channels = try await repositories.channels.channels(topic: resolved, environment: environment)
        return .json(status: 200, ["channels": .array(channels.map(Self.channelJSON))])
    }

    /// `DELETE /v1/channels/{id}`: deletes the channel at Apple (a channel Apple no longer knows counts as
    /// deleted) and forgets it (204, or 404).
    func deleteChannel(_ request: APIRequest) async throws -> HTTPResponse {
        let record = try await storedChannel(request)
        let manager = try channelManager(record.environment, topic: record.topic)
        do {
            _ = try await manager.deleteChannel(record.id, bundleID: record.topic, requestID: nil)
        } catch  where error.reason == .channelNotRegistered {
            // Already gone at Apple (deleted elsewhere, or the broadcast capability was turned off).
        } catch {
            throw Self.apiError(error)
        }
        try await repositories.channels.remove(id: record.id, environment: record.environment)
        logger.info("channel.deleted", [("topic", record.topic), ("environment", record.environment.name), ("channel_id", record.id.rawValue)])
        return .empty(status: 204)
    }

    /// The stored channel the path's `id` and the optional `environment` query name: 404 when there is none,
    /// 409 when the id exists in both environments and none was named.
    func storedChannel(_ request: APIRequest, environment given: APNSEnvironment? = nil) async throws -> ChannelRecord {
        let id = try request.channelID("id")
        var environment = given
        if environment == nil, let value = request.http.queryValue("environment") {
            guard let parsed = APNSEnvironment(named: value) else {
                throw APIError.badRequest("invalid_query", "environment must be production or development")
            }
            environment = parsed
        }
        let environments = environment.map { [$0] } ?? [.development, .production]
        var found: [ChannelRecord] = []
        for candidate in environments {
            if let record = try await repositories.channels.channel(id: id, environment: candidate) { found.append(record) }
        }
        guard let record = found.first else { throw APIError.notFound("unknown_channel", "no channel \(id.rawValue.prefix(256))") }
        guard found.count == 1 else {
            throw APIError(status: 409, code: "ambiguous_channel", message: "the channel exists in both environments; name one")
        }
        return record
    }

    func channelTopic(_ given: String?) throws(APIError) -> String {
        guard let topic = given ?? configuration.defaultTopic, !topic.isEmpty else {
            throw APIError.invalidField("topic", "is required (no default topic is configured)")
        }
        if let reason = APNSBroadcast.bundleIDRejection(topic) {
            throw APIError.invalidField("topic", "must be the app's bundle id without a push-type suffix (\(reason.rawValue))")
        }
        return topic
    }

    /// The channel manager of the app serving `topic` in `environment`: 422 `unknown_topic` when no app
    /// serves it, 503 when that app has no channel management endpoint there.
    func channelManager(_ environment: APNSEnvironment, topic: String) throws(APIError) -> any APNSChannelManaging {
        try checkServed(topic)
        guard let manager = senders.app(forTopic: topic)?.channels(for: environment) else {
            throw APIError(
                status: 503, code: "channels_unavailable",
                message: "no channel management endpoint is configured for \(environment.name)")
        }
        return manager
    }

    /// A channel management failure as an answer. Apple refusing what the request names (the topic is
    /// not the certificate's or the key's, the app lacks the broadcast capability, 10,000 channels) is 422
    /// `apns_rejected` naming Apple's reason; a refusal of the service's own credentials or requests is 502
    /// `apns_rejected`; 429/5xx answers and transport failures are 503 `apns_unavailable` (retry later).
    static func apiError(_ error: APNSChannelManagementError) -> APIError {
        if error.isRetryable {
            return APIError(status: 503, code: "apns_unavailable", message: "channel management unavailable: \(error)", retryAfterSeconds: 1)
        }
        guard let rejection = error.rejection else {
            return APIError(status: 503, code: "apns_unavailable", message: "channel management failed: \(error)", retryAfterSeconds: 1)
        }
        let message = "APNs refused the request: \(rejection.status) \(rejection.reason.rawValue)"
        return APIError(status: requestRefusals.contains(rejection.reason) ? 422 : 502, code: "apns_rejected", message: message)
    }

    /// Apple's reasons that refuse what the request named rather than how the service asked.
    private static let requestRefusals: Set<APNSRejectionReason> = [
        .topicMismatch, .topicDisallowed, .featureNotEnabled, .cannotCreateChannelConfig, .badChannelId,
        .channelNotRegistered,
    ]

    static func channelJSON(_ record: ChannelRecord) -> JSONValue {
        .object([
            "id": .string(record.id.rawValue), "topic": .string(record.topic), "environment": .string(record.environment.name),
            "message_storage_policy": .int(Int64(record.storagePolicy.rawValue)),
            "created_at": RecordJSON.time(record.createdAt),
        ])
    }
}
