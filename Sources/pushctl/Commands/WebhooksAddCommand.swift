import ArgumentParsing
import Foundation
import JSON

/// `pushctl webhooks add`: POST /v1/webhooks.
enum WebhooksAddCommand: Command {
    static let name = "webhooks add"
    static let summary = "Register a webhook endpoint for outcome events."
    static let eventTypes = [
        "notification.rejected", "notification.failed", "notification.expired", "device.invalidated",
        "mate_request.created", "mate_request.accepted", "mate_request.declined",
    ]
    static var help: CommandHelp {
        CommandHelp(
            overview: "Register a webhook endpoint (POST /v1/webhooks). The signing secret is generated unless "
                + "--secret-file gives one, and is printed once.",
            usage: ["pushctl webhooks add <url> [--events <type,...> (default *)] [--id <id>] [--secret-file <path>]"],
            arguments: [("<url>", "Where events are POSTed: an http:// or https:// URL.")],
            options: [
                .value("events", "types", "Comma-separated event types, or * for all: " + eventTypes.joined(separator: ", ") + "."),
                .value("id", "id", "The endpoint id (default: generated)."),
                .value("secret-file", "path", "A file holding the signing secret (16-256 characters)."),
            ] + ServiceClient.specs,
            examples: [
                "pushctl webhooks add https://ops.example.com/push-events --events notification.rejected,device.invalidated",
                "pushctl webhooks add http://10.0.0.5:9000/hooks --id crm --secret-file ./crm.secret",
            ])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        let url = try arguments.positionals(["url"], command: name)[0]
        var body: [String: JSONValue] = ["url": .string(url)]
        let events = (arguments.value("events") ?? "*").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for event in events where event != "*" && !eventTypes.contains(event) {
            throw CLIError.usage("unknown event type '\(event)' (one of \(eventTypes.joined(separator: ", ")), or *)", command: name)
        }
        body["events"] = .array(events.map { .string($0) })
        if let id = arguments.value("id") { body["id"] = .string(id) }
        if let path = arguments.value("secret-file") {
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw CLIError(ExitCode.config, "cannot read secret file '\(path)'", hint: "check the path given to --secret-file")
            }
            body["secret"] = .string(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let response = try await ServiceClient(arguments).send("POST", "/v1/webhooks", body: .object(body))
        if format != .table {
            ServiceOutput.print(response, format: format)
        } else {
            let created = response.json
            Console.out("registered webhook \(created?["id"]?.stringValue ?? "?") → \(created?["url"]?.stringValue ?? "")")
            Console.out("secret: \(created?["secret"]?.stringValue ?? "")  (shown once; receivers verify Webhook-Signature with it)")
        }
        return ExitCode.ok
    }
}
