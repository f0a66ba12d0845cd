import APNSCore
import JSON

/// Apple's rules for broadcast requests (`POST /4/broadcasts/apps/<bundle ID>` on the push listener), in
/// the order the mock applies them. Sources: "Sending broadcast push notification requests to APNs"
/// (path, required headers, 5 KB limit) and the reason table of "Handling error responses from Apple
/// Push Notification service"; every reason below is 400 unless noted.
///
///  1. the path is `/4/broadcasts/apps/` + a bundle ID without `/`        else 404 BadPath
///  2. `:method` is POST                                                  else 405 MethodNotAllowed
///  3. `apns-request-id` (and `apns-id`, which Apple's token sample uses), when sent, is a UUID
///                                                                        else BadMessageId
///  4. authentication, with the path's bundle ID as the topic             → 403 / 429 as for pushes
///  5. the bundle ID has no push-type suffix                              else TopicDisallowed
///  6. the bundle ID is the token's or certificate's                      else 403 TopicMismatch
///  7. the app has the broadcast capability                               else FeatureNotEnabled
///  8. `apns-channel-id` is sent, base64 (of any length: "don't make assumptions on the channel ID
///     size", "Sending channel management requests to APNs"), and a channel of the app
///                                                  else MissingChannelId / BadChannelId / ChannelNotRegistered
///  9. `apns-push-type` is sent and is `liveactivity` (any case: Apple writes LiveActivity,
///     Liveactivity and liveactivity)                                     else MissingPushType / InvalidPushType
/// 10. `apns-priority` (required) is 10, 5 or 1                           else BadPriority
/// 11. `apns-expiration` (required) is an integer ≥ 0, and 0 on a No Message Stored channel
///                                                                        else BadExpirationDate
/// 12. the payload is not empty, at most 5,120 bytes, and a JSON object
///                                                  else PayloadEmpty / 413 PayloadTooLarge / BadRequestPayload
/// 13. its `aps` is a Live Activity update or end: `event` `update` or `end` (never `start`: "You can't use
///     broadcast push notifications to start a Live Activity"), an integer `timestamp`, and a
///     `content-state` object for an update ("Starting and updating Live Activities with ActivityKit push
///     notifications"; `APNSLiveActivityRules`)                           else BadRequestPayload
///
/// Accepted broadcasts then go through the fault rates like device pushes.
enum MockAPNSBroadcastRules {
    /// Whether `path` is a broadcast path (then these rules judge it, not the device rules).
    static func isBroadcast(_ path: String) -> Bool {
        path.hasPrefix(APNSHeader.broadcastPathPrefix)
    }

    /// The bundle ID a path names after `prefix` and before `suffix`; nil when empty or holding `/`.
    static func bundleID(in path: String, prefix: String, suffix: String = "") -> String? {
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), path.utf8.count > prefix.utf8.count + suffix.utf8.count else { return nil }
        let bundle = path.dropFirst(prefix.count).dropLast(suffix.count)
        return bundle.contains("/") ? nil : String(bundle)
    }

    /// Rules 4–7, shared with channel management: authenticate with `bundleID` as the topic, then check
    /// the suffix, the grant and the capability. nil when all pass.
    static func checkSender(
        _ request: MockAPNSRequest, bundleID: String, channels: MockAPNSChannelRegistry,
        authenticate: (MockAPNSRequest) -> MockAPNSAuthentication
    ) -> APNSRejectionReason? {
        // Broadcast and management requests carry no apns-topic: the path's bundle ID is the topic.
        let asTopic = MockAPNSRequest(
            method: request.method, path: request.path,
            headers: request.headers.filter { $0.name != APNSHeader.topic } + [(APNSHeader.topic, bundleID)],
            payload: request.payload, clientCertificateUID: request.clientCertificateUID, connectionID: request.connectionID,
            clientCertificateFingerprint: request.clientCertificateFingerprint)
        let grant: MockAPNSTopicGrant
        switch authenticate(asTopic) {
        case .rejected(let reason): return reason
        case .authorized(let granted): grant = granted
        }
        if MockAPNSTopicRules.suffix(of: bundleID) != nil { return .topicDisallowed }
        guard grant.allowedTopics.contains(bundleID) else { return .topicMismatch }
        guard channels.isEnabled(bundleID: bundleID) else { return .featureNotEnabled }
        return nil
    }

    /// Rule 3: a request id or apns-id that is not a UUID.
    static func hasBadRequestID(_ request: MockAPNSRequest) -> Bool {
        [APNSHeader.requestID, APNSHeader.id].contains { name in request.header(name).map { !APNSID.isValid($0) } == true }
    }

    /// Rule 8: the channel of `bundleID` named by `apns-channel-id`, or the reason it is refused.
    static func channel(
        _ request: MockAPNSRequest, bundleID: String, channels: MockAPNSChannelRegistry
    ) -> MockChecked<MockAPNSChannel> {
        guard let text = request.header(APNSHeader.channelID), !text.isEmpty else { return .refused(.missingChannelId) }
        guard APNSChannelID.isBase64(text) else { return .refused(.badChannelId) }
        guard let channel = channels.channel(text, bundleID: bundleID) else { return .refused(.channelNotRegistered) }
        return .passed(channel)
    }

    /// Applies rules 1–12; nil when the broadcast passes (the channel then gets it).
    static func check(
        _ request: MockAPNSRequest, channels: MockAPNSChannelRegistry,
        authenticate: (MockAPNSRequest) -> MockAPNSAuthentication
    ) -> APNSRejectionReason? {
        guard let bundleID = bundleID(in: request.path, prefix: APNSHeader.broadcastPathPrefix) else { return .badPath }
        guard request.method == "POST" else { return .methodNotAllowed }
        if hasBadRequestID(request) { return .badMessageId }
        if let reason = checkSender(request, bundleID: bundleID, channels: channels, authenticate: authenticate) { return reason }
        let channel: MockAPNSChannel
        switch self.channel(request, bundleID: bundleID, channels: channels) {
        case .refused(let reason): return reason
        case .passed(let found): channel = found
        }
        guard let pushType = request.header(APNSHeader.pushType) else { return .missingPushType }
        guard pushType.lowercased() == PushType.liveactivity.rawValue else { return .invalidPushType }
        guard let priority = request.header(APNSHeader.priority), Priority(headerValue: priority) != nil else { return .badPriority }
        guard let text = request.header(APNSHeader.expiration), let expiration = Int64(text), expiration >= 0 else {
            return .badExpirationDate
        }
        if expiration != 0, channel.storagePolicy == .noMessageStored { return .badExpirationDate }
        guard !request.payload.isEmpty else { return .payloadEmpty }
        guard request.payload.count <= APNSHeader.maxBroadcastPayloadBytes else { return .payloadTooLarge }
        guard let body = try? JSONValue.parse(request.payload), case .object = body else { return .badRequestPayload }
        if APNSLiveActivityRules.broadcastPayloadProblem(body) != nil { return .badRequestPayload }
        return nil
    }
}
