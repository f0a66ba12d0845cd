import APNS
import APNSCore
import Foundation
import JSON
import PushHTTP
import PushHTTP1
import PushStore

extension PushAPI {
    /// `GET /v1/channels/apple?environment=&topic=`: the channels Apple holds for the topic in that
    /// environment ("Read all channel IDs for a bundle ID", "Sending channel management requests to APNs")
    /// beside the stored ones: each of Apple's with `stored`, and the drift both ways (`only_at_apple`: created
    /// at Apple without a stored row, yet counting toward Apple's 10,000; `only_stored`: gone at Apple).
    func appleChannels(_ request: APIRequest) async throws -> HTTPResponse {
        let (topic, environment) = try driftScope(topic: request.http.queryValue("topic"), environment: request.http.queryValue("environment"))
        let drift = try await channelDrift(topic: topic, environment: environment)
        return .json(
            status: 200,
            [
                "topic": .string(topic), "environment": .string(environment.name),
                "channels": .array(drift.atApple.map { ["id": .string($0.rawValue), "stored": .bool(drift.stored.contains($0))] }),
                "only_at_apple": .array(drift.onlyAtApple.map { .string($0.rawValue) }),
                "only_stored": .array(drift.onlyStored.map { .string($0.rawValue) }),
            ])
    }

    /// `POST /v1/channels/reconcile` (`{"environment", "topic"?, "strays": "adopt"|"delete"}`): makes the
    /// store agree with Apple. Channels only at Apple are adopted (their storage policy read from Apple,
    /// "Read a channel", and stored) or deleted at Apple; stored channels Apple no longer has are forgotten.
    /// 200 with the ids of each.
    func reconcileChannels(_ request: APIRequest) async throws -> HTTPResponse {
        let body = try request.jsonBody()
        try body.checkKnown(["topic", "environment", "strays"])
        guard let environment = try body.environment("environment") else { throw APIError.invalidField("environment", "is required") }
        let strays = try body.string("strays") ?? ""
        guard strays == "adopt" || strays == "delete" else { throw APIError.invalidField("strays", "must be adopt or delete") }
        let topic = try channelTopic(try body.topic("topic"))
        let manager = try channelManager(environment, topic: topic)
        let drift = try await channelDrift(topic: topic, environment: environment)
        var adopted: [JSONValue] = []
        var deleted: [JSONValue] = []
        for id in drift.onlyAtApple {
            do {
                if strays == "adopt" {
                    let configuration = try await manager.channel(id, bundleID: topic, requestID: nil)
                    try await repositories.channels.add(
                        ChannelRecord(id: id, topic: topic, environment: environment, storagePolicy: configuration.storagePolicy, createdAt: Date()))
                    adopted.append(.string(id.rawValue))
                } else {
                    _ = try await manager.deleteChannel(id, bundleID: topic, requestID: nil)
                    deleted.append(.string(id.rawValue))
                }
            } catch let error as APNSChannelManagementError where error.reason == .channelNotRegistered {
                // Gone at Apple meanwhile: nothing to adopt or delete.
            } catch let error as APNSChannelManagementError {
                throw Self.apiError(error)
            }
        }
        var forgotten: [JSONValue] = []
        for id in drift.onlyStored where try await repositories.channels.remove(id: id, environment: environment) {
            forgotten.append(.string(id.rawValue))
        }
        logger.info(
            "channel.reconciled",
            [
                ("topic", topic), ("environment", environment.name), ("adopted", "\(adopted.count)"), ("deleted", "\(deleted.count)"),
                ("forgotten", "\(forgotten.count)"),
            ])
        return .json(
            status: 200,
            [
                "topic": .string(topic), "environment": .string(environment.name), "adopted": .array(adopted), "deleted": .array(deleted),
                "forgotten": .array(forgotten),
            ])
    }

    /// Apple's channels and the stored ones of `topic` in `environment`, and how they differ.
    struct ChannelDrift {
        var atApple: [APNSChannelID]
        var stored: Set<APNSChannelID>
        var onlyAtApple: [APNSChannelID]
        var onlyStored: [APNSChannelID]
    }

    private func channelDrift(topic: String, environment: APNSEnvironment) async throws -> ChannelDrift {
        let manager = try channelManager(environment, topic: topic)
        let list: APNSChannelList
        do {
            list = try await manager.channels(bundleID: topic, requestID: nil)
        } catch {
            throw Self.apiError(error)
        }
        let storedRecords = try await repositories.channels.channels(topic: topic, environment: environment)
        let stored = Set(storedRecords.map(\.id))
        let atApple = Set(list.channelIDs)
        return ChannelDrift(
            atApple: list.channelIDs, stored: stored, onlyAtApple: list.channelIDs.filter { !stored.contains($0) },
            onlyStored: storedRecords.map(\.id).filter { !atApple.contains($0) })
    }

    private func driftScope(topic: String?, environment: String?) throws(APIError) -> (String, APNSEnvironment) {
        if let topic, !APIFieldRules.isTopic(topic) { throw APIError.badRequest("invalid_query", "topic must be a bundle id") }
        guard let name = environment, let parsed = APNSEnvironment(named: name) else {
            throw APIError.badRequest("invalid_query", "environment is required: production or development")
        }
        return (try channelTopic(topic ?? configuration.defaultTopic), parsed)
    }
}
