import ArgumentParsing
import Foundation
import JSON

/// `pushctl broadcast`: POST /v1/channels/{id}/broadcasts.
enum BroadcastCommand: Command {
    static let name = "broadcast"
    static let summary = "Send a Live Activity update to every subscriber of a channel."
    static var help: CommandHelp {
        CommandHelp(
            overview:
                "Send one Live Activity update to every device subscribed to a broadcast channel, through the outbox "
                + "(POST /v1/channels/{id}/broadcasts).",
            usage: [
                "pushctl broadcast --channel <id> (--content-state <json> [--event update|end] [--dismissal-date <epoch s>] | --payload <json>)",
                "    [--priority 10|5|1] [--expiration <epoch s>] [--environment production|development] [--wait]",
            ],
            options: [
                .value("channel", "id", "The channel id (required)."),
                .value("content-state", "json", "The activity's new content state (a JSON object)."),
                .choice("event", ["update", "end"], "The Live Activity event (default update)."),
                .value("dismissal-date", "epoch-s", "With --event end: when the system removes the ended activity."),
                .value("stale-date", "epoch-s", "When the system marks the activity's content outdated."),
                .value("payload", "json", "The whole payload instead (a JSON object with aps)."),
                .value("priority", "10|5|1", "apns-priority (default 10)."),
                .value("expiration", "epoch-s", "apns-expiration (default 0: deliver once, store nothing)."),
                .choice("environment", ["production", "development"], "Needed when the id exists in both."),
                .flag("wait", "Wait until the broadcast is final and show its outcome."),
            ] + ServiceClient.specs,
            examples: [
                #"pushctl broadcast --channel dHdpbmNoYW5uZWw= --content-state '{"walkers":12}' --wait"#,
                #"pushctl broadcast --channel dHdpbmNoYW5uZWw= --event end --content-state '{"walkers":0}' --dismissal-date 1767225600"#,
            ])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        let channel = try arguments.required("channel", command: name)
        var body: [String: JSONValue] = ["payload": try payload(arguments)]
        if let priority = try arguments.int("priority", command: name) { body["priority"] = .int(Int64(priority)) }
        if let expiration = try arguments.int("expiration", command: name) { body["expiration"] = .int(Int64(expiration)) }
        if let environment = try ChannelsOptions.environment(arguments, command: name) { body["environment"] = .string(environment) }
        let wait = arguments.has("wait")
        let path = "/v1/channels/\(ServiceClient.segment(channel))/broadcasts" + (wait ? "?wait=true" : "")
        let response = try await ServiceClient(arguments).send("POST", path, body: .object(body))
        if format != .table {
            ServiceOutput.print(response, format: format)
        } else {
            let row = response.json?["notifications"]?[0]
            let state = row?["state"]?.stringValue ?? "queued"
            Console.out("broadcast \(row?["id"]?.stringValue ?? "-") to channel \(channel): \(state)")
        }
        return ExitCode.ok
    }

    /// `--payload` as given, or an `aps` built from `--content-state`, `--event`, `--stale-date` and
    /// `--dismissal-date` with the current time as `timestamp`.
    private static func payload(_ arguments: ParsedArguments) throws(CLIError) -> JSONValue {
        if let text = arguments.value("payload") {
            guard let value = try? JSONValue.parse(Array(text.utf8)), case .object = value else {
                throw CLIError.usage("--payload must be a JSON object", command: name)
            }
            return value
        }
        guard let text = arguments.value("content-state") else {
            throw CLIError.usage("give --content-state or --payload", command: name)
        }
        guard let state = try? JSONValue.parse(Array(text.utf8)), case .object = state else {
            throw CLIError.usage("--content-state must be a JSON object", command: name)
        }
        let event = arguments.value("event") ?? "update"
        guard event == "update" || event == "end" else { throw CLIError.usage("--event must be update or end", command: name) }
        var aps: [String: JSONValue] = [
            "event": .string(event), "content-state": state, "timestamp": .int(Int64(Date().timeIntervalSince1970)),
        ]
        if let stale = try arguments.int("stale-date", command: name) { aps["stale-date"] = .int(Int64(stale)) }
        if let dismissal = try arguments.int("dismissal-date", command: name) {
            guard event == "end" else { throw CLIError.usage("--dismissal-date goes with --event end", command: name) }
            aps["dismissal-date"] = .int(Int64(dismissal))
        }
        return ["aps": .object(aps)]
    }
}
