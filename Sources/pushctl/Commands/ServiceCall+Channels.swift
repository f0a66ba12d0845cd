import APNSCore
import ArgumentParsing
import Foundation
import JSON

/// `pushctl channels` and `pushctl broadcast`: Live Activity broadcast channels and what is sent on them.
extension ServiceCall {
    /// `pushctl channels add`: POST /v1/channels.
    static let channelsAdd = ServiceCall(
        "channels add", summary: "Create a broadcast channel (Live Activities).",
        overview: "Create an iOS 18 broadcast channel with Apple's channel management API and store it (POST /v1/channels).",
        usage: [
            "pushctl channels add [--environment production|development (default production)] [--storage none|most-recent] [--topic <bundle-id>]"
        ],
        options: [
            .environment("Which APNs environment (default production)."),
            .choice(
                "storage", ["none", "most-recent"],
                "Message storage policy: none (0, broadcasts use expiration 0; default) or most-recent (1)."),
            .topic,
        ],
        examples: ["pushctl channels add --environment development --storage most-recent"],
        table: .line { response, _ in
            let channel = response.json
            return "created channel \(channel?["id"]?.stringValue ?? "-") (topic \(channel?["topic"]?.stringValue ?? "-"), "
                + "\(channel?["environment"]?.stringValue ?? "-"), storage policy \(channel?["message_storage_policy"]?.intValue ?? 0))"
        }
    ) { input throws(CLIError) in
        var body: [String: JSONValue] = ["environment": .string(try input.environment() ?? "production")]
        switch input.value("storage") ?? "none" {
        case "none": body["message_storage_policy"] = 0
        case "most-recent": body["message_storage_policy"] = 1
        default: throw input.usage("--storage must be none or most-recent")
        }
        if let topic = input.value("topic") { body["topic"] = .string(topic) }
        return .post("/v1/channels", .object(body))
    }

    /// `pushctl channels ls`: GET /v1/channels.
    static let channelsList = ServiceCall(
        "channels ls", summary: "List the stored broadcast channels.",
        overview: "List the stored broadcast channels of an app (GET /v1/channels).",
        usage: ["pushctl channels ls [--environment production|development] [--topic <bundle-id>] [--output table|json|yaml]"],
        options: [
            .environment("Only this environment's channels."),
            .topic,
        ],
        examples: ["pushctl channels ls --environment development", "pushctl channels ls --output json | jq -r '.channels[].id'"],
        table: .list("channels", empty: "no channels")
    ) { input throws(CLIError) in
        var query: [String] = []
        if let environment = try input.environment() { query.append("environment=\(environment)") }
        if let topic = input.value("topic") { query.append("topic=\(ServiceClient.segment(topic))") }
        return .get("/v1/channels" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
    }

    /// `pushctl channels rm`: DELETE /v1/channels/{id}.
    static let channelsRemove = ServiceCall(
        "channels rm", summary: "Delete a broadcast channel.",
        overview: "Delete a broadcast channel at Apple and forget it (DELETE /v1/channels/{id}).",
        usage: ["pushctl channels rm <channel-id> [--environment production|development]"],
        argument: ("<channel-id>", "The id APNs gave the channel (base64)."),
        options: [.environment("Needed when the id exists in both.")],
        examples: ["pushctl channels rm dHdpbmNoYW5uZWw="], table: .line { _, input in "deleted channel \(input.positional)" }
    ) { input throws(CLIError) in
        .delete("/v1/channels/\(input.pathSegment)" + (try input.environment().map { "?environment=\($0)" } ?? ""))
    }

    /// `pushctl channels apple`: GET /v1/channels/apple.
    static let channelsApple = ServiceCall(
        "channels apple", summary: "List the channels Apple holds beside the stored ones.",
        overview:
            "List the broadcast channels Apple holds for an app in one environment, each marked stored or not, and the "
            + "drift both ways: channels only at Apple (they count toward Apple's 10,000) and stored ones Apple no longer has "
            + "(GET /v1/channels/apple).",
        usage: ["pushctl channels apple --environment production|development [--topic <bundle-id>] [--output table|json|yaml]"],
        options: [
            .environment("The environment to ask (required)."),
            .topic,
        ],
        examples: ["pushctl channels apple --environment development"],
        table: .counts([("at Apple:", "channels"), ("only at Apple:", "only_at_apple"), ("only stored:", "only_stored")])
    ) { input throws(CLIError) in
        guard let environment = try input.environment() else { throw input.usage("--environment is required") }
        var path = "/v1/channels/apple?environment=\(environment)"
        if let topic = input.value("topic") { path += "&topic=\(ServiceClient.segment(topic))" }
        return .get(path)
    }

    /// `pushctl channels reconcile`: POST /v1/channels/reconcile.
    static let channelsReconcile = ServiceCall(
        "channels reconcile", summary: "Make the stored channels agree with Apple's.",
        overview:
            "Make the stored channels of an app agree with the ones Apple holds (POST /v1/channels/reconcile): channels only "
            + "at Apple are adopted (stored with the storage policy Apple reports) or deleted at Apple; stored channels Apple "
            + "no longer has are forgotten.",
        usage: ["pushctl channels reconcile --environment production|development --strays adopt|delete [--topic <bundle-id>]"],
        options: [
            .environment("The environment to reconcile (required)."),
            .choice("strays", ["adopt", "delete"], "What to do with channels only Apple holds (required)."),
            .topic,
        ],
        examples: ["pushctl channels reconcile --environment production --strays delete"],
        table: .counts([("adopted", "adopted"), ("deleted at Apple", "deleted"), ("forgotten", "forgotten")])
    ) { input throws(CLIError) in
        guard let environment = try input.environment() else { throw input.usage("--environment is required") }
        guard let strays = input.value("strays") else { throw input.usage("--strays adopt|delete is required") }
        var body: [String: JSONValue] = ["environment": .string(environment), "strays": .string(strays)]
        if let topic = input.value("topic") { body["topic"] = .string(topic) }
        return .post("/v1/channels/reconcile", .object(body))
    }

    /// `pushctl broadcast`: POST /v1/channels/{id}/broadcasts.
    static let broadcast = ServiceCall(
        "broadcast", summary: "Send a Live Activity update to every subscriber of a channel.",
        overview:
            "Send one Live Activity update to every device subscribed to a broadcast channel, through the outbox "
            + "(POST /v1/channels/{id}/broadcasts).",
        usage: [
            "pushctl broadcast --channel <id> (--content-state <json> [--event update|end] [--dismissal-date <epoch s>] | --payload <json>)",
            "    [--priority 10|5] [--expiration <epoch s>] [--environment production|development] [--wait]",
        ],
        options: [
            .value("channel", "id", "The channel id (required)."),
            .value("content-state", "json", "The activity's new content state (a JSON object)."),
            .choice("event", ["update", "end"], "The Live Activity event (default update)."),
            .value("dismissal-date", "epoch-s", "With --event end: when the system removes the ended activity."),
            .value("stale-date", "epoch-s", "When the system marks the activity's content outdated."),
            .value("payload", "json", "The whole payload instead (a JSON object with aps)."),
            .value("priority", "10|5", "apns-priority (default 10; Live Activity pushes take 5 or 10)."),
            .value("expiration", "epoch-s", "apns-expiration (default 0: deliver once, store nothing)."),
            .environment("Needed when the id exists in both."),
            .flag("wait", "Wait until the broadcast is final and show its outcome."),
        ],
        examples: [
            #"pushctl broadcast --channel dHdpbmNoYW5uZWw= --content-state '{"walkers":12}' --wait"#,
            #"pushctl broadcast --channel dHdpbmNoYW5uZWw= --event end --content-state '{"walkers":0}' --dismissal-date 1767225600"#,
        ],
        table: .line { response, input in
            let row = response.json?["notifications"]?[0]
            let state = row?["state"]?.stringValue ?? "queued"
            return "broadcast \(row?["id"]?.stringValue ?? "-") to channel \(input.value("channel") ?? ""): \(state)"
        }
    ) { input throws(CLIError) in
        let channel = try input.requiredSegment("channel")
        var body: [String: JSONValue] = ["payload": try broadcastPayload(input)]
        if let priority = try input.int("priority") { body["priority"] = .int(Int64(priority)) }
        if let expiration = try input.int("expiration") { body["expiration"] = .int(Int64(expiration)) }
        if let environment = try input.environment() { body["environment"] = .string(environment) }
        return .post("/v1/channels/\(channel)/broadcasts" + (input.has("wait") ? "?wait=true" : ""), .object(body))
    }

    /// `--payload` as given, or an `aps` built from `--content-state`, `--event`, `--stale-date` and
    /// `--dismissal-date` with the current time as `timestamp`.
    private static func broadcastPayload(_ input: CommandInput) throws(CLIError) -> JSONValue {
        if let text = input.value("payload") {
            guard let value = try? JSONValue.parse(Array(text.utf8)), case .object = value else {
                throw input.usage("--payload must be a JSON object")
            }
            // The service's and the mock's rule: a Live Activity update or end, never a start.
            if let problem = APNSLiveActivityRules.broadcastPayloadProblem(value) { throw input.usage("--payload: \(problem)") }
            return value
        }
        guard let text = input.value("content-state") else {
            throw input.usage("give --content-state or --payload")
        }
        guard let state = try? JSONValue.parse(Array(text.utf8)), case .object = state else {
            throw input.usage("--content-state must be a JSON object")
        }
        let event = input.value("event") ?? "update"
        guard event == "update" || event == "end" else { throw input.usage("--event must be update or end") }
        var aps: [String: JSONValue] = [
            "event": .string(event), "content-state": state, "timestamp": .int(Int64(Date().timeIntervalSince1970)),
        ]
        if let stale = try input.int("stale-date") { aps["stale-date"] = .int(Int64(stale)) }
        if let dismissal = try input.int("dismissal-date") {
            guard event == "end" else { throw input.usage("--dismissal-date goes with --event end") }
            aps["dismissal-date"] = .int(Int64(dismissal))
        }
        return ["aps": .object(aps)]
    }
}
