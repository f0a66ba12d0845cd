public import JSON

/// Apple's rules for ActivityKit pushes that the client, the service, the mock and `pushctl` share.
/// Source: "Starting and updating Live Activities with ActivityKit push notifications"
/// (developer.apple.com/documentation/activitykit/starting-and-updating-live-activities-with-activitykit-push-notifications),
/// "Construct the ActivityKit remote push notification payload" and the note "You can't use broadcast push
/// notifications to start a Live Activity".
public enum APNSLiveActivityRules {
    /// The `apns-priority` values a Live Activity push may carry, to a device or on a channel: "Set the
    /// value for the `apns-priority` header field to `5` or `10`".
    public static let priorities: Set<Priority> = [.immediately, .consideringDevicePower]

    /// The largest integer every JSON reader holds exactly (2^53 − 1).
    static let maxJSONInteger: Int64 = 9_007_199_254_740_991

    /// What is wrong with a broadcast body as a Live Activity update or end on a channel, or nil when
    /// it is one. A broadcast carries a JSON object whose `aps` has:
    /// - `event`: `update` or `end` (a channel cannot `start` an activity);
    /// - `timestamp`: an integer, seconds since 1970 ("Set the `timestamp` to the current time");
    /// - `content-state`: an object, required for `update` ("Set the fields for the `content-state` key
    ///   to match your custom `Activity.ContentState` type"); optional but an object for `end`.
    public static func broadcastPayloadProblem(_ payload: [UInt8]) -> String? {
        guard let value = try? JSONValue.parse(payload) else { return "the payload is not JSON" }
        return broadcastPayloadProblem(value)
    }

    /// The same check for a parsed body.
    public static func broadcastPayloadProblem(_ payload: JSONValue) -> String? {
        guard case .object(let root) = payload else { return "the payload must be a JSON object" }
        guard case .object(let aps)? = root["aps"] else { return "the payload must have an aps object" }
        guard let event = aps["event"] else { return "aps.event is required (update or end)" }
        switch event.stringValue {
        case APNSPayload.LiveActivity.Event.update.rawValue, APNSPayload.LiveActivity.Event.end.rawValue:
            break
        case APNSPayload.LiveActivity.Event.start.rawValue:
            return "aps.event start is not allowed: a broadcast cannot start a Live Activity"
        default:
            return "aps.event must be update or end"
        }
        guard let timestamp = aps["timestamp"] else { return "aps.timestamp is required (seconds since 1970)" }
        // 0 … 2^53 − 1: the integers every JSON reader holds exactly.
        guard let seconds = timestamp.int64Value, (0...maxJSONInteger).contains(seconds) else {
            return "aps.timestamp must be seconds since 1970"
        }
        if let state = aps["content-state"] {
            guard case .object = state else { return "aps.content-state must be a JSON object" }
        } else if event.stringValue == APNSPayload.LiveActivity.Event.update.rawValue {
            return "aps.content-state is required for an update"
        }
        return nil
    }
}
