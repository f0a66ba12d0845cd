package import APNSCore
package import Foundation
package import JSON

/// A validated Live Activity request body: `POST /v1/live-activities` (start), `.../{id}/update` and
/// `.../{id}/end`. The rules are Apple's ("Starting and updating Live Activities with ActivityKit push
/// notifications", ActivityKit): a start carries `attributes-type`, `attributes` and an `alert`; every
/// event carries `content-state`; `timestamp` is set by the service; `apns-priority` is 5 or 10.
package struct LiveActivityRequest: Sendable {
    /// Start, update or end.
    package var event: APNSPayload.LiveActivity.Event
    /// The user whose push-to-start tokens a start goes to.
    package var userID: String?
    /// The activity id the app registers its update tokens under (a start may choose it).
    package var activityID: String?
    /// `attributes-type`: the `ActivityAttributes` type's name (start).
    package var attributesType: String?
    /// `attributes` (start).
    package var attributes: JSONValue?
    /// `content-state`: the activity's dynamic content.
    package var contentState: JSONValue?
    /// The alert: required to start ("Include an alert"), optional otherwise. Its `sound` goes inside
    /// `alert`, as in every Live Activity sample of [A], not in `aps.sound`.
    package var alert: APNSPayload.Alert?
    /// `input-push-token: 1`: the started activity sends a new update token (iOS 18+).
    package var inputPushToken: Bool
    /// `input-push-channel`: the started activity listens on this broadcast channel (iOS 18+).
    package var inputPushChannel: APNSChannelID?
    /// `stale-date` in epoch seconds.
    package var staleDate: Int64?
    /// `dismissal-date` in epoch seconds (end).
    package var dismissalDate: Int64?
    /// `relevance-score`: orders several activities of the app.
    package var relevanceScore: Double?
    /// `apns-priority`: 10 counts toward Apple's hourly budget of Live Activity pushes, 5 does not.
    package var priority: Priority

    /// Parses `body` for `event`; throws a 400 `APIError`.
    package init(_ body: JSONFields, event: APNSPayload.LiveActivity.Event) throws(APIError) {
        self.event = event
        var known: Set<String> = ["content-state", "alert", "stale-date", "relevance-score", "priority"]
        if event == .start { known.formUnion(["user_id", "activity_id", "attributes-type", "attributes", "input-push-token", "input-push-channel"]) }
        if event == .end { known.insert("dismissal-date") }
        try body.checkKnown(known)
        inputPushToken = false
        if event == .start {
            userID = try body.userID("user_id")
            activityID = try body.string("activity_id", maxBytes: 128)
            if let id = activityID, PathParameter.activityID.problem(id) != nil {
                throw .invalidField("activity_id", "must be 1-128 characters of A-Z a-z 0-9 _ . -")
            }
            guard let type = try body.string("attributes-type", maxBytes: 512, maxLength: 128), !type.isEmpty else {
                throw .invalidField("attributes-type", "is required and must not be empty")
            }
            attributesType = type
            guard let attributes = body.members["attributes"], case .object = attributes else {
                throw .invalidField("attributes", "is required and must be a JSON object")
            }
            self.attributes = attributes
            inputPushToken = try body.bool("input-push-token") ?? false
            // Any length: Apple says not to assume the channel id's size; the body limit bounds it.
            if let text = try body.string("input-push-channel", maxBytes: .max) {
                guard APNSChannelID.isBase64(text) else { throw .invalidField("input-push-channel", "must be a base64 channel id") }
                inputPushChannel = APNSChannelID(text)
            }
            if inputPushToken && inputPushChannel != nil {
                throw .invalidField("input-push-channel", "cannot be combined with input-push-token")
            }
        }
        if let state = body.members["content-state"] {
            guard case .object = state else { throw .invalidField("content-state", "must be a JSON object") }
            contentState = state
        } else if event != .end {
            throw .invalidField("content-state", "is required")
        }
        if let alert = try body.object("alert") {
            try alert.checkKnown(["title", "body", "sound"])
            self.alert = .content(
                APNSPayload.AlertContent(
                    title: try alert.string("title", maxBytes: 2048, maxLength: 512), body: try alert.string("body", maxBytes: 4096, maxLength: 1024),
                    sound: try alert.string("sound", maxBytes: 1024, maxLength: 256)))
        } else if event == .start {
            throw .invalidField("alert", "is required to start a Live Activity")
        }
        staleDate = try Self.epochSeconds(body, "stale-date")
        dismissalDate = try Self.epochSeconds(body, "dismissal-date")
        relevanceScore = try body.double("relevance-score")
        // Apple: "Set the value for the apns-priority header field to 5 or 10"; without one APNs uses 10.
        // Updates default to 5, which does not count toward the budget; start and end default to 10.
        priority = event == .update ? .consideringDevicePower : .immediately
        if let value = try body.int("priority") {
            guard value == 5 || value == 10, let parsed = Priority(rawValue: value) else {
                throw .invalidField("priority", "must be 5 or 10")
            }
            priority = parsed
        }
    }

    private static func epochSeconds(_ body: JSONFields, _ key: String) throws(APIError) -> Int64? {
        guard let value = try body.int(key) else { return nil }
        guard value >= 0 else { throw .invalidField(key, "must be epoch seconds, 0 or more") }
        return Int64(value)
    }

    /// The JSON payload, with `timestamp` set to `now` (Apple: "the current time in seconds since 1970").
    package func payload(now: Date) -> APNSPayload {
        let liveActivity = APNSPayload.LiveActivity(
            timestamp: Int64(now.timeIntervalSince1970), event: event, contentState: contentState,
            dismissalDate: dismissalDate, staleDate: staleDate, attributesType: attributesType, attributes: attributes,
            inputPushToken: inputPushToken, inputPushChannel: inputPushChannel)
        return APNSPayload(alert: alert, relevanceScore: relevanceScore, liveActivity: liveActivity)
    }
}
