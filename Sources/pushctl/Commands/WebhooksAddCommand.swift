import ArgumentParsing
import Foundation
import JSON

/// `pushctl webhooks add`: POST /v1/webhooks.
struct WebhooksAddCommand: ServiceCommand {
    let name = "webhooks add"
    let summary = "Register a webhook endpoint for outcome events."
    static let eventTypes = [
        "notification.rejected", "notification.failed", "notification.expired", "device.invalidated",
        "mate_request.created", "mate_request.accepted", "mate_request.declined",
    ]
    let help = CommandHelp(
        overview: "Register a webhook endpoint (POST /v1/webhooks). The signing secret is generated unless "
            + "--secret-file gives one, and is printed once.",
        usage: ["pushctl webhooks add <url> [--events <type,...> (default *)] [--id <id>] [--secret-file <path>]"],
        arguments: [("<url>", "Where events are POSTed: an http:// or https:// URL.")],
        options: [
            .value("events", "types", "Comma-separated event types, or * for all: " + Self.eventTypes.joined(separator: ", ") + "."),
            .value("id", "id", "The endpoint id (default: generated)."),
            .value("secret-file", "path", "A file holding the signing secret (16-256 characters)."),
        ] + ServiceClient.specs,
        examples: [
            "pushctl webhooks add https://ops.example.com/push-events --events notification.rejected,device.invalidated",
            "pushctl webhooks add http://10.0.0.5:9000/hooks --id crm --secret-file ./crm.secret",
        ])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        var body: [String: JSONValue] = ["url": .string(input.positional)]
        let events = (input.value("events") ?? "*").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for event in events where event != "*" && !Self.eventTypes.contains(event) {
            throw input.usage("unknown event type '\(event)' (one of \(Self.eventTypes.joined(separator: ", ")), or *)")
        }
        body["events"] = .array(events.map { .string($0) })
        if let id = input.value("id") { body["id"] = .string(id) }
        if let path = input.value("secret-file") {
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw CLIError(ExitCode.config, "cannot read secret file '\(path)'", hint: "check the path given to --secret-file")
            }
            body["secret"] = .string(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return ServiceClient.Request(method: "POST", path: "/v1/webhooks", body: .object(body))
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format) {
            let created = response.json
            Console.out("registered webhook \(created?["id"]?.stringValue ?? "?") → \(created?["url"]?.stringValue ?? "")")
            Console.out("secret: \(created?["secret"]?.stringValue ?? "")  (shown once; receivers verify Webhook-Signature with it)")
        }
    }
}
