import APNSCore
import Foundation
import JSON
import PushHTTP
import PushHTTP1
import PushStore

extension PushAPI {
    /// `POST /v1/live-activities`: starts a Live Activity on the user's devices through their push-to-start
    /// tokens of `attributes-type` (202; 422 `no_push_to_start_token` when the user has none).
    func startLiveActivity(_ request: APIRequest) async throws -> HTTPResponse {
        let start = try LiveActivityRequest(try request.jsonBody(), event: .start)
        let userID = start.userID ?? ""
        let tokens = try await repositories.activityTokens.pushToStartTokens(
            userID: userID, attributesType: start.attributesType, now: Date())
        guard !tokens.isEmpty else {
            throw APIError(
                status: 422, code: "no_push_to_start_token",
                message: "user \(userID) has no push-to-start token for \(start.attributesType ?? "")")
        }
        let activityID = start.activityID ?? OutboxID.make()
        return try await sendLiveActivity(start, to: tokens, activityID: activityID, key: request.key, wait: try request.queryFlag("wait"))
    }

    /// `POST /v1/live-activities/{id}/update`: updates the activity through its update tokens (202; 404
    /// `unknown_activity` when none is active). Priority 10 past the activity's budget goes at 5 (see
    /// `LiveActivitySettings`); the answer's `priority` and `priority_downgraded` say so.
    func updateLiveActivity(_ request: APIRequest) async throws -> HTTPResponse {
        let update = try LiveActivityRequest(try request.jsonBody(), event: .update)
        let activityID = request.parameter("id")
        return try await sendLiveActivity(
            update, to: try await activeUpdateTokens(activityID), activityID: activityID, key: request.key, wait: try request.queryFlag("wait"))
    }

    /// `POST /v1/live-activities/{id}/end`: ends the activity and retires its update tokens at the
    /// `dismissal-date` (or when the system removes an ended activity by default, four hours later).
    func endLiveActivity(_ request: APIRequest) async throws -> HTTPResponse {
        let end = try LiveActivityRequest(try request.jsonBody(), event: .end)
        let wait = try request.queryFlag("wait")
        let activityID = request.parameter("id")
        let tokens = try await activeUpdateTokens(activityID)
        let response = try await sendLiveActivity(end, to: tokens, activityID: activityID, key: request.key, wait: wait)
        // Apple: an ended activity stays on the Lock Screen up to four hours unless `dismissal-date` says
        // otherwise (a past date removes it at once). The tokens are kept until then, never later.
        let now = Date()
        let fourHours = now.addingTimeInterval(Self.defaultDismissalSeconds)
        let retireAt = end.dismissalDate.map { min(max(Date(timeIntervalSince1970: Double($0)), now), fourHours) } ?? fourHours
        try await repositories.activityTokens.retire(activityID: activityID, at: retireAt)
        logger.info("live_activity.ended", [("activity_id", activityID), ("tokens", "\(tokens.count)")])
        return response
    }

    /// How long the system keeps an ended Live Activity on the Lock Screen by default (Apple: "up to four hours").
    static let defaultDismissalSeconds: Double = 4 * 3600

    func activeUpdateTokens(_ activityID: String) async throws -> [ActivityTokenRecord] {
        let tokens = try await repositories.activityTokens.updateTokens(activityID: activityID, now: Date())
        guard !tokens.isEmpty else {
            throw APIError.notFound("unknown_activity", "no active update token for Live Activity \(activityID)")
        }
        return tokens
    }

    /// One `liveactivity` push per token to `<bundle ID>.push-type.liveactivity`, written to the outbox.
    /// A token registered under that topic already keeps it; one registered under the bare bundle ID gets
    /// the suffix (Apple: "Set the `apns-topic` header field using the following format: `<your
    /// bundleID>.push-type.liveactivity`").
    /// An update asking for priority 10 takes one from the activity's budget once the request is known to
    /// be good (so a refused request spends nothing), and goes at 5 when none is left. With `wait`
    /// (`?wait=true`), the answer is 200 with each notification's outcome once all are final or the wait
    /// timed out, as for `POST /v1/pushes`.
    func sendLiveActivity(
        _ request: LiveActivityRequest, to tokens: [ActivityTokenRecord], activityID: String, key: APIKey?, wait: Bool = false
    ) async throws -> HTTPResponse {
        var live = request
        let now = Date()
        let payload = live.payload(now: now).encoded()
        // Device Live Activity pushes take the liveactivity push type's limit (`PushType.maxPayloadBytes`).
        guard payload.count <= PushType.liveactivity.maxPayloadBytes else {
            throw APIError(
                status: 413, code: "payload_too_large",
                message: "the payload is \(payload.count) bytes; a Live Activity push takes at most \(PushType.liveactivity.maxPayloadBytes)")
        }
        try requireTokenAuth(topics: tokens.map(\.topic))
        try admitNotifications(tokens.count, key: key)
        // Room in the outbox first: a refused event spends no priority-10 budget.
        let topics = tokens.map { Self.liveActivityTopic($0.topic) }
        let (pushID, items, waitID, downgraded) = try await withOutboxRoom(topics, payloadBytes: payload.count) {
            let downgraded = try await spendPriorityBudget(live, activityID: activityID, now: now)
            if downgraded { live.priority = .consideringDevicePower }
            let pushID = OutboxID.make()
            var random = BulkRandom()
            let items = zip(tokens, OutboxID.makeDerived(count: tokens.count, at: now, using: &random)).map { token, id in
                OutboxItem(
                    id: id.id, pushID: pushID, token: token.token, topic: Self.liveActivityTopic(token.topic),
                    pushType: .liveactivity, payload: payload, environment: token.environment, priority: live.priority,
                    apnsID: id.apnsID, now: now)
            }
            let waitID = wait ? await waiters.register(rowIDs: items.map(\.id)) : nil
            do {
                try await writer.enqueue(items)
            } catch {
                if let waitID { await waiters.finish(waitID) }
                throw error
            }
            return (pushID, items, waitID, downgraded)
        }
        metrics.recordEnqueued(items.count)
        logger.info("live_activity.enqueued", [("activity_id", activityID), ("event", live.event.rawValue), ("push_id", pushID)])
        let about: [String: JSONValue] = [
            "activity_id": .string(activityID), "push_id": .string(pushID),
            "priority": .int(Int64(live.priority.rawValue)), "priority_downgraded": .bool(downgraded),
        ]
        if let waitID {
            await waiters.wait(waitID, timeout: configuration.waitTimeout)
            let outcome = try JSONValue.parse(PushJSON.push(pushID: pushID, rows: try await outbox.items(pushID: pushID)))
            return .json(status: 200, .object((outcome.objectValue ?? [:]).merging(about) { _, mine in mine }))
        }
        let notifications: [JSONValue] = items.map { ["id": .string($0.id), "token": .string($0.target.deviceToken?.hex ?? "")] }
        return .json(status: 202, .object(about.merging(["notifications": .array(notifications)]) { _, new in new }))
    }

    /// 422 `token_auth_required` when an app that would send Live Activity pushes to `topics` signs in with
    /// a certificate: Apple documents ActivityKit pushes over a token-based connection, an Apple engineer
    /// said certificates are not supported for them, and APNs (like the mock) refuses them with
    /// `TopicDisallowed` (docs/live-activities.md, "Certificate or token"). Refused before anything is
    /// written, so no notification is sent to fail and no token is spent.
    func requireTokenAuth(topics: [String]) throws(APIError) {
        for topic in Set(topics) {
            guard let app = senders.app(forTopic: topic), app.credential.kind == "certificate" else { continue }
            throw APIError(
                status: 422, code: "token_auth_required",
                message: "app \(app.name) signs in with a certificate; Live Activity pushes need token auth (a .p8 key with key_id and team_id)")
        }
    }

    /// The `apns-topic` of a Live Activity push to a token registered under `topic`: the topic itself when it
    /// already ends in `.push-type.liveactivity`, else the bundle ID with that suffix.
    static func liveActivityTopic(_ topic: String) -> String {
        PushType.liveactivity.suits(topic: topic) ? topic : PushType.liveactivity.topic(forBundleID: topic)
    }

    /// For an update asking for priority 10: takes one from the activity's budget; true when none was left
    /// (the update then goes at 5). Starts, ends and updates at 5 spend nothing.
    private func spendPriorityBudget(_ live: LiveActivityRequest, activityID: String, now: Date) async throws -> Bool {
        guard live.event == .update, live.priority == .immediately else { return false }
        let granted = try await repositories.activityTokens.takePriorityBudget(
            activityID: activityID, limit: configuration.liveActivities.priority10PerHour,
            window: LiveActivitySettings.budgetWindow, now: now)
        metrics.liveActivities.recordPriority10Request(downgraded: !granted)
        if !granted {
            logger.info(
                "live_activity.priority_downgraded",
                [("activity_id", activityID), ("priority10_per_hour", "\(configuration.liveActivities.priority10PerHour)")])
        }
        return !granted
    }
}
