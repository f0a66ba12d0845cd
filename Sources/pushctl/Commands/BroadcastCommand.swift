import APNSCore
import ArgumentParsing
import Foundation
import JSON

/// `pushctl broadcast`: POST /v1/channels/{id}/broadcasts.
struct BroadcastCommand: ServiceCommand {
    let name = "broadcast"
    let summary = "Send a Live Activity update to every subscriber of a channel."
    let help = CommandHelp(
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
            .choice("environment", ["production", "development"], "Needed when the id exists in both."),
            .flag("wait", "Wait until the broadcast is final and show its outcome."),
        ] + ServiceClient.specs,
        examples: [
            #"pushctl broadcast --channel dHdpbmNoYW5uZWw= --content-state '{"walkers":12}' --wait"#,
            #"pushctl broadcast --channel dHdpbmNoYW5uZWw= --event end --content-state '{"walkers":0}' --dismissal-date 1767225600"#,
        ])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        let channel = try input.required("channel")
        var body: [String: JSONValue] = ["payload": try payload(input)]
        if let priority = try input.int("priority") { body["priority"] = .int(Int64(priority)) }
        if let expiration = try input.int("expiration") { body["expiration"] = .int(Int64(expiration)) }
        if let environment = try input.environment() { body["environment"] = .string(environment) }
        let path = "/v1/channels/\(ServiceClient.segment(channel))/broadcasts" + (input.has("wait") ? "?wait=true" : "")
        return ServiceClient.Request(method: "POST", path: path, body: .object(body))
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format) {
            let row = response.json?["notifications"]?[0]
            let state = row?["state"]?.stringValue ?? "queued"
            Console.out("broadcast \(row?["id"]?.stringValue ?? "-") to channel \(input.value("channel") ?? ""): \(state)")
        }
    }

    /// `--payload` as given, or an `aps` built from `--content-state`, `--event`, `--stale-date` and
    /// `--dismissal-date` with the current time as `timestamp`.
    private func payload(_ input: CommandInput) throws(CLIError) -> JSONValue {
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
