import APNSCore
import ArgumentParsing
import Foundation
import JSON

/// The payload and header flags every send mode shares, and what they build.
struct PushOptions {
    /// The flags that build the payload; `--payload` gives the whole of it instead.
    private static let content: [OptionSpec] = [
        .value("title", "text", "Alert title."),
        .value("subtitle", "text", "Alert subtitle."),
        .value("body", "text", "Alert body."),
        .value("badge", "n", "Badge number."),
        .value("sound", "name", "Sound name ('default' for the system sound)."),
        .value("category", "id", "Notification category, e.g. MATE_REQUEST."),
        .value("thread-id", "id", "Thread identifier for grouping."),
        .value("data", "key=value", "Custom top-level key; the value is JSON if it parses, else a string.", repeatable: true),
    ]

    /// Every option of a push: the content flags, `--payload` and the APNs headers.
    static let specs: [OptionSpec] =
        content + [
            .value("payload", "json|@file", "The whole APNs payload as JSON (instead of the flags above)."),
            OptionSpec(
                name: "push-type", value: "type", help: "apns-push-type: alert (default), background, voip, liveactivity, ...",
                choices: PushType.all.map(\.rawValue)),
            .choice("priority", ["10", "5", "1"], "apns-priority."),
            .value("expiration", "epoch-s", "apns-expiration in seconds since 1970 (0: deliver once or drop)."),
            .value("collapse-id", "id", "apns-collapse-id (at most 64 bytes)."),
            .value("topic", "topic", "apns-topic (default: the certificate's bundle id plus the push type's suffix)."),
        ]

    let payload: JSONValue
    let pushType: PushType
    let priority: Priority?
    let expiration: Int64?
    let collapseID: String?
    let topic: String?

    init(_ arguments: ParsedArguments, command: String) throws(CLIError) {
        pushType = PushType(rawValue: arguments.value("push-type") ?? "alert")
        if !pushType.isKnown {
            throw CLIError.usage("unknown --push-type '\(pushType.rawValue)'", command: command)
        }
        if let text = arguments.value("priority") {
            guard let number = Int(text), let value = Priority(rawValue: number) else {
                throw CLIError.usage("--priority must be 10, 5 or 1, got '\(text)'", command: command)
            }
            priority = value
        } else {
            priority = nil
        }
        if let text = arguments.value("expiration") {
            guard let seconds = Int64(text), seconds >= 0 else {
                throw CLIError.usage("--expiration must be epoch seconds, got '\(text)'", command: command)
            }
            expiration = seconds
        } else {
            expiration = nil
        }
        collapseID = arguments.value("collapse-id")
        topic = arguments.value("topic")
        payload = try Self.payload(arguments, pushType: pushType, command: command)
    }

    /// The notification for one token (direct sends).
    func notification(token: DeviceToken, defaultTopic: String) -> APNSNotification {
        APNSNotification(
            token: token, topic: topic ?? pushType.topic(forBundleID: defaultTopic), pushType: pushType,
            priority: priority, expiration: expiration.map { APNSExpiration.at(epochSeconds: $0) } ?? .none,
            collapseID: collapseID, payload: payload.serialized())
    }

    /// The members of a `POST /v1/pushes` body besides the recipients.
    var requestMembers: [String: JSONValue] {
        var members: [String: JSONValue] = ["payload": payload, "push_type": .string(pushType.rawValue)]
        if let priority { members["priority"] = .int(Int64(priority.rawValue)) }
        if let expiration { members["expiration"] = .int(expiration) }
        if let collapseID { members["collapse_id"] = .string(collapseID) }
        if let topic { members["topic"] = .string(topic) }
        return members
    }

    private static func payload(_ arguments: ParsedArguments, pushType: PushType, command: String) throws(CLIError) -> JSONValue {
        if let raw = arguments.value("payload") {
            if let flag = content.first(where: { arguments.value($0.name) != nil }) {
                throw CLIError.usage("--payload cannot be combined with --\(flag.name)", command: command)
            }
            return try parsePayload(raw, command: command)
        }
        var payload = APNSPayload()
        let title = arguments.value("title")
        let subtitle = arguments.value("subtitle")
        let body = arguments.value("body")
        if title != nil || subtitle != nil || body != nil {
            payload.alert = .content(.init(title: title, subtitle: subtitle, body: body))
        }
        if let text = arguments.value("badge") {
            guard let badge = Int(text) else { throw CLIError.usage("--badge needs a whole number, got '\(text)'", command: command) }
            payload.badge = badge
        }
        payload.sound = arguments.value("sound").map { APNSPayload.Sound.named($0) }
        payload.category = arguments.value("category")
        payload.threadID = arguments.value("thread-id")
        for pair in arguments.all("data") {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw CLIError.usage("--data needs key=value, got '\(pair)'", command: command)
            }
            let key = String(pair[..<equals])
            let text = String(pair[pair.index(after: equals)...])
            payload.custom[key] = (try? JSONValue.parse(Array(text.utf8))) ?? .string(text)
        }
        if pushType == .background, payload.alert == nil { payload.contentAvailable = true }
        if payload == APNSPayload() {
            throw CLIError(ExitCode.usage, "nothing to send", hint: "give --title/--body, --data or --payload")
        }
        return payload.jsonValue
    }

    private static func parsePayload(_ raw: String, command: String) throws(CLIError) -> JSONValue {
        var bytes = Array(raw.utf8)
        if raw.hasPrefix("@") {
            let path = String(raw.dropFirst())
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError(ExitCode.config, "cannot read payload file '\(path)'", hint: "check the path after '@'")
            }
            bytes = Array(data)
        }
        do {
            let value = try JSONValue.parse(bytes)
            guard value.objectValue != nil else {
                throw CLIError(ExitCode.usage, "--payload must be a JSON object", hint: #"e.g. --payload '{"aps":{"alert":"Hi"}}'"#)
            }
            return value
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(ExitCode.usage, "--payload is not valid JSON: \(error)", hint: #"e.g. --payload '{"aps":{"alert":"Hi"}}'"#)
        }
    }
}
