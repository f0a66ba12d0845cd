package import APNSCore
import Foundation
import JSON
import PushHTTP
import PushHTTP1
import PushStore

extension PushAPI {
    /// `POST /v1/channels/{id}/broadcasts`: one broadcast to every subscriber of a stored channel, written
    /// durably to the outbox (a channel row) and sent by the worker with `send(broadcasts:)`, with the
    /// retries, back-off, expiry and fencing of device rows. 202 with the row's id; with `?wait=true`, 200
    /// with its outcome once final or the wait timed out.
    func createBroadcast(_ request: APIRequest) async throws -> HTTPResponse {
        let wait = try request.queryFlag("wait")
        let body = try request.jsonBody()
        let broadcast = try BroadcastRequest(body)
        let channel = try await storedChannel(request, environment: broadcast.environment)
        try admitNotifications(1, key: request.key)
        let pushID = OutboxID.make()
        let item = OutboxItem.broadcast(
            pushID: pushID, channelID: channel.id, bundleID: channel.topic, payload: broadcast.payload,
            environment: channel.environment, priority: broadcast.priority, expiration: .at(epochSeconds: Int64(broadcast.expiration)),
            apnsID: APNSID.random(), now: Date())
        // Apple's broadcast rules, checked before anything is stored ("Sending broadcast push notification
        // requests to APNs"): a payload of at most 5 KB, priority 10/5, and `apns-expiration: 0` on a
        // channel that stores no message ("Sending channel management requests to APNs").
        if let rejection = item.broadcast?.validate(storagePolicy: channel.storagePolicy) {
            switch rejection.reason {
            case .payloadTooLarge:
                throw APIError(
                    status: 413, code: "payload_too_large",
                    message: "the payload is \(broadcast.payload.count) bytes; a broadcast takes at most 5120")
            case .badExpirationDate:
                // The body is well formed; the channel it names decides (so not a 400).
                throw APIError(
                    status: 422, code: "invalid_expiration",
                    message: "expiration must be 0 on a channel with message_storage_policy 0 (no message stored)")
            default:
                throw APIError(
                    status: 422, code: "invalid_broadcast", message: "APNs would refuse this broadcast: \(rejection.reason.rawValue)")
            }
        }
        let waitID = try await withOutboxRoom([channel.topic], payloadBytes: broadcast.payload.count) {
            let waitID = wait ? await waiters.register(rowIDs: [item.id]) : nil
            do {
                try await writer.enqueue([item])
            } catch {
                if let waitID { await waiters.finish(waitID) }
                throw error
            }
            return waitID
        }
        metrics.recordEnqueued(1)
        logger.info("broadcast.enqueued", [("push_id", pushID), ("channel_id", channel.id.rawValue)])
        if let waitID {
            await waiters.wait(waitID, timeout: configuration.waitTimeout)
            return .jsonBytes(status: 200, PushJSON.push(pushID: pushID, rows: try await outbox.items(pushID: pushID)))
        }
        return .jsonBytes(status: 202, PushJSON.accepted(pushID: pushID, items: [item]))
    }
}

/// A validated `POST /v1/channels/{id}/broadcasts` body.
package struct BroadcastRequest: Sendable, Equatable {
    /// The JSON payload (an object with `aps`).
    package var payload: [UInt8]
    /// `apns-priority`: 10 (the default) or 5.
    package var priority: Priority
    /// `apns-expiration` in epoch seconds: 0 (deliver once, store nothing) by default.
    package var expiration: Int
    /// Which environment's channel, when the id exists in both.
    package var environment: APNSEnvironment?

    /// Parses and checks the body; throws a 400 `APIError`.
    package init(_ body: JSONFields) throws(APIError) {
        try body.checkKnown(["payload", "priority", "expiration", "environment"])
        guard let raw = body.members["payload"], case .object(let members) = raw else {
            throw .invalidField("payload", "is required and must be a JSON object")
        }
        guard case .object = members["aps"] else { throw .invalidField("payload", "must have an aps object") }
        // A Live Activity update or end, as Apple describes it for channels (`APNSLiveActivityRules`).
        if let problem = APNSLiveActivityRules.broadcastPayloadProblem(raw) { throw .invalidField("payload", problem) }
        payload = raw.serialized()
        priority = .immediately
        if let value = try body.int("priority") {
            // Apple's Live Activity page allows 5 or 10 on a channel too; the broadcast page's 1 is not taken
            // (docs/broadcast.md, "Where Apple's documents disagree").
            guard let parsed = Priority(rawValue: value), APNSLiveActivityRules.priorities.contains(parsed) else {
                throw .invalidField("priority", "must be 10 or 5")
            }
            priority = parsed
        }
        expiration = 0
        if let value = try body.int("expiration") {
            guard value >= 0 else { throw .invalidField("expiration", "must be epoch seconds, 0 or more") }
            expiration = value
        }
        environment = try body.environment("environment")
    }
}
