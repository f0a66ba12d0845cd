import APNSCore
import Foundation
import JSON
import ProfileDrop
import PushHTTP
import PushHTTP1
import PushStore

/// Walks as Live Activities: with `walks.live_activity` on, an accepted mate request starts a Live Activity
/// on both users' phones (the activity id is the mate request's id, so both phones register their update
/// tokens under the same id), and `POST /v1/walks/{id}/end` by either user ends it on both.
extension PushAPI {
    /// Starts the walk's Live Activity on both users' phones through their push-to-start tokens of the
    /// configured attributes type. Best effort: the answer to the mate request stands whatever happens here.
    func startWalkActivity(_ walk: MateRequestRecord) async {
        let users = [walk.senderID, walk.recipientID]
        let body: JSONValue = [
            "attributes-type": .string(configuration.walkAttributesType),
            "attributes": ["walk_id": .string(walk.id), "mates": .array(users.map(JSONValue.string))],
            "content-state": ["state": "walking", "started_at": .int(Int64(Date().timeIntervalSince1970))],
            "alert": ["title": "Walk started", "body": "Have a good walk!"],
            "input-push-token": true,
        ]
        for user in users {
            do {
                var members = body.objectValue ?? [:]
                members["user_id"] = .string(user)
                let start = try LiveActivityRequest(try JSONFields.parse(body: JSONValue.object(members).serialized()), event: .start)
                let tokens = try await repositories.activityTokens.pushToStartTokens(
                    userID: user, attributesType: configuration.walkAttributesType, now: Date())
                guard !tokens.isEmpty else { continue }
                _ = try await sendLiveActivity(start, to: tokens, activityID: walk.id, key: nil)
            } catch {
                logger.warning("walk.start_failed", [("walk_id", walk.id), ("error", "\(error)")])
            }
        }
    }

    /// `POST /v1/walks/{id}/end` (`{"user_id": ...}`, either user of the accepted mate request): ends the
    /// walk's Live Activity on both phones at once (`dismissal-date` now) and retires its update tokens.
    func endWalk(_ request: APIRequest) async throws -> HTTPResponse {
        let body = try request.jsonBody()
        try body.checkKnown(["user_id"])
        let userID = try body.userID("user_id")
        let walkID = request.parameter("id")
        guard let walk = try await match.mateRequest(id: walkID), walk.state == .accepted else {
            throw APIError.notFound("unknown_walk", "no accepted mate request \(walkID)")
        }
        guard userID == walk.senderID || userID == walk.recipientID else {
            throw APIError(status: 403, code: "not_walker", message: "user \(userID) is not on walk \(walkID)")
        }
        let now = Date()
        let tokens = try await repositories.activityTokens.updateTokens(activityID: walkID, now: now)
        var notifications = 0
        if !tokens.isEmpty {
            let fields = try JSONFields.parse(
                body: JSONValue.object([
                    "content-state": ["state": "ended", "ended_by": .string(userID)],
                    "dismissal-date": .int(Int64(now.timeIntervalSince1970)),
                ]).serialized())
            _ = try await sendLiveActivity(try LiveActivityRequest(fields, event: .end), to: tokens, activityID: walkID, key: request.key)
            notifications = tokens.count
        }
        try await repositories.activityTokens.retire(activityID: walkID, at: now)
        logger.info("walk.ended", [("walk_id", walkID), ("notifications", "\(notifications)")])
        return .json(
            status: 200, ["walk_id": .string(walkID), "ended_by": .string(userID), "notifications": .int(Int64(notifications))])
    }
}
