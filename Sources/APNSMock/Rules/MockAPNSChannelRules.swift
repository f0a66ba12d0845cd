import APNSCore
import JSON

/// Apple's rules for channel management requests (the management listener), in the order the mock
/// applies them. Sources: "Sending channel management requests to APNs" (paths, methods, headers, body
/// fields, 201/200/204 answers, 10,000 channels per app and environment) and the reason table of
/// "Handling error responses from Apple Push Notification service"; reasons are 400 unless noted.
///
///  1. the path is `/1/apps/<bundle ID>/channels` or `/1/apps/<bundle ID>/all-channels`  else 404 BadPath
///  2. `:method` is POST, GET or DELETE on `channels`, GET on `all-channels`   else 405 MethodNotAllowed
///  3. `apns-request-id`, when sent, is a canonical UUID                       else BadMessageId (Apple
///     names no reason for a bad request id; this is the nearest it documents)
///  4. authentication, the bundle ID's suffix, grant and capability, as for broadcasts
///     → 403 …, TopicDisallowed, 403 TopicMismatch, FeatureNotEnabled
///  5. create: the body is a JSON object                                       else BadRequestPayload
///     with no other keys than `message-storage-policy` and `push-type`       else BadRequestParams
///     `push-type` sent, and `LiveActivity` (any case)                         else MissingPushType / InvalidPushType
///     `message-storage-policy` sent, and 0 or 1                              else BadRequestParams
///     fewer channels than the limit                                           else CannotCreateChannelConfig
///  6. read, delete: `apns-channel-id` as for broadcasts → MissingChannelId / BadChannelId / ChannelNotRegistered
///
/// Then fault rates, as for pushes. Success: create 201 with `apns-channel-id`; read 200 with
/// `{"message-storage-policy":N,"push-type":"LiveActivity"}`; delete 204; list 200 with `{"channels":[…]}`.
enum MockAPNSChannelRules {
    /// One management operation.
    enum Operation: String, Sendable {
        case create, read, delete, list
    }

    /// A successful answer: status, headers besides `apns-request-id`, body.
    struct Answer: Sendable {
        var status: Int
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
    }

    /// The operation a request's method and path name, or the reason it names none.
    static func operation(method: String, path: String) -> MockChecked<(Operation, bundleID: String)> {
        let prefix = APNSHeader.channelManagementPathPrefix
        if let bundle = MockAPNSBroadcastRules.bundleID(in: path, prefix: prefix, suffix: APNSHeader.channelPathSuffix) {
            switch method {
            case "POST": return .passed((.create, bundle))
            case "GET": return .passed((.read, bundle))
            case "DELETE": return .passed((.delete, bundle))
            default: return .refused(.methodNotAllowed)
            }
        }
        if let bundle = MockAPNSBroadcastRules.bundleID(in: path, prefix: prefix, suffix: APNSHeader.allChannelsPathSuffix) {
            return method == "GET" ? .passed((.list, bundle)) : .refused(.methodNotAllowed)
        }
        return .refused(.badPath)
    }

    /// Applies the rules and, when they pass and `fault` (asked once every rule passed, before anything
    /// changes) has no transient failure to answer instead, performs the operation on `channels`.
    static func handle(
        _ request: MockAPNSRequest, channels: MockAPNSChannelRegistry,
        authenticate: (MockAPNSRequest) -> MockAPNSAuthentication, fault: () -> APNSRejectionReason? = { nil }
    ) -> MockChecked<Answer> {
        let operation: Operation
        let bundleID: String
        switch self.operation(method: request.method, path: request.path) {
        case .refused(let reason): return .refused(reason)
        case .passed(let found): (operation, bundleID) = found
        }
        if let id = request.header(APNSHeader.requestID), !APNSID.isValid(id) { return .refused(.badMessageId) }
        if let reason = MockAPNSBroadcastRules.checkSender(request, bundleID: bundleID, channels: channels, authenticate: authenticate) {
            return .refused(reason)
        }
        switch operation {
        case .create:
            return create(request.payload, bundleID: bundleID, channels: channels, fault: fault)
        case .list:
            if let reason = fault() { return .refused(reason) }
            let ids = channels.channels(bundleID: bundleID).map { JSONValue.string($0.id.rawValue) }
            return .passed(Answer(status: 200, headers: json, body: JSONValue.object(["channels": .array(ids)]).serialized()))
        case .read, .delete:
            let channel: MockAPNSChannel
            switch MockAPNSBroadcastRules.channel(request, bundleID: bundleID, channels: channels) {
            case .refused(let reason): return .refused(reason)
            case .passed(let found): channel = found
            }
            if let reason = fault() { return .refused(reason) }
            if operation == .read {
                let body: JSONValue = [
                    "message-storage-policy": .int(Int64(channel.storagePolicy.rawValue)), "push-type": .string(channel.pushType),
                ]
                return .passed(Answer(status: 200, headers: json, body: body.serialized()))
            }
            channels.delete(channel.id.rawValue, bundleID: bundleID)
            return .passed(Answer(status: 204))
        }
    }

    private static let json: [(name: String, value: String)] = [("content-type", "application/json")]

    private static func create(
        _ payload: [UInt8], bundleID: String, channels: MockAPNSChannelRegistry, fault: () -> APNSRejectionReason?
    ) -> MockChecked<Answer> {
        guard case .object(let members)? = try? JSONValue.parse(payload) else { return .refused(.badRequestPayload) }
        let known: Set<String> = ["message-storage-policy", "push-type"]
        guard members.keys.allSatisfy(known.contains) else { return .refused(.badRequestParams) }
        guard let pushType = members["push-type"] else { return .refused(.missingPushType) }
        guard let text = pushType.stringValue, text.lowercased() == "liveactivity" else { return .refused(.invalidPushType) }
        guard let number = members["message-storage-policy"]?.int64Value, let policy = APNSMessageStoragePolicy(rawValue: Int(number)) else {
            return .refused(.badRequestParams)
        }
        if let reason = fault() { return .refused(reason) }
        guard let channel = channels.create(bundleID: bundleID, storagePolicy: policy, pushType: "LiveActivity") else {
            return .refused(.cannotCreateChannelConfig)
        }
        return .passed(Answer(status: 201, headers: [(APNSHeader.channelID, channel.id.rawValue)]))
    }
}

/// What a broadcast or management rule found: the value, or Apple's reason for refusing.
enum MockChecked<Value> {
    case passed(Value)
    case refused(APNSRejectionReason)

    /// The reason, when refused.
    var refusal: APNSRejectionReason? {
        if case .refused(let reason) = self { return reason }
        return nil
    }
}
