import ArgumentParsing
import Foundation
import JSON

/// `pushctl webhooks`: the endpoints push-server posts outcome events to.
extension ServiceCall {
    /// The event types an endpoint may subscribe to.
    static let webhookEventTypes = [
        "notification.rejected", "notification.failed", "notification.expired", "device.invalidated",
        "mate_request.created", "mate_request.accepted", "mate_request.declined",
    ]

    /// `pushctl webhooks add`: POST /v1/webhooks.
    static let webhooksAdd = ServiceCall(
        "webhooks add", summary: "Register a webhook endpoint for outcome events.",
        overview: "Register a webhook endpoint (POST /v1/webhooks). The signing secret is generated unless "
            + "--secret-file gives one, and is printed once.",
        usage: ["pushctl webhooks add <url> [--events <type,...> (default *)] [--id <id>] [--secret-file <path>]"],
        argument: ("<url>", "Where events are POSTed: an http:// or https:// URL."),
        options: [
            .value("events", "types", "Comma-separated event types, or * for all: " + webhookEventTypes.joined(separator: ", ") + "."),
            .value("id", "id", "The endpoint id (default: generated)."),
            .value("secret-file", "path", "A file holding the signing secret (16-256 characters)."),
        ],
        examples: [
            "pushctl webhooks add https://ops.example.com/push-events --events notification.rejected,device.invalidated",
            "pushctl webhooks add http://10.0.0.5:9000/hooks --id crm --secret-file ./crm.secret",
        ],
        table: .line { response, _ in
            let created = response.json
            return "registered webhook \(created?["id"]?.stringValue ?? "?") → \(created?["url"]?.stringValue ?? "")\n"
                + "secret: \(created?["secret"]?.stringValue ?? "")  (shown once; receivers verify Webhook-Signature with it)"
        }, request: addWebhook)

    /// `pushctl webhooks ls`: GET /v1/webhooks.
    static let webhooksList = ServiceCall(
        "webhooks ls", summary: "List webhook endpoints.",
        overview: "List the webhook endpoints, from the API and the configuration file (GET /v1/webhooks).",
        usage: ["pushctl webhooks ls [--output table|json|yaml]"],
        examples: ["pushctl webhooks ls", "pushctl webhooks ls --output json | jq '.webhooks[].url'"], table: .list("webhooks", empty: "no webhooks")
    ) { _ in .get("/v1/webhooks") }

    /// `pushctl webhooks rm`: DELETE /v1/webhooks/{id}.
    static let webhooksRemove = ServiceCall(
        "webhooks rm", summary: "Remove a webhook endpoint.",
        overview: "Remove a webhook endpoint and the events not yet delivered to it (DELETE /v1/webhooks/{id}).",
        usage: ["pushctl webhooks rm <id>"], argument: ("<id>", "The endpoint id."), examples: ["pushctl webhooks rm crm"],
        table: .line { _, input in "removed webhook \(input.positional)" }
    ) { input in .delete("/v1/webhooks/\(input.pathSegment)") }

    /// `pushctl webhooks deliveries`: GET /v1/webhooks/{id}/deliveries.
    static let webhooksDeliveries = ServiceCall(
        "webhooks deliveries", summary: "Show a webhook endpoint's recent failed deliveries.",
        overview: "Show the latest deliveries to an endpoint that failed at least once: still retrying, given up, "
            + "or delivered after failures (GET /v1/webhooks/{id}/deliveries).",
        usage: ["pushctl webhooks deliveries <id> [--output table|json|yaml]"], argument: ("<id>", "The endpoint id."),
        examples: ["pushctl webhooks deliveries crm", "pushctl webhooks deliveries crm --output yaml"],
        table: .list("deliveries", empty: "no failed deliveries")
    ) { input in .get("/v1/webhooks/\(input.pathSegment)/deliveries") }

    private static func addWebhook(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        var body: [String: JSONValue] = ["url": .string(input.positional)]
        let events = (input.value("events") ?? "*").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for event in events where event != "*" && !webhookEventTypes.contains(event) {
            throw input.usage("unknown event type '\(event)' (one of \(webhookEventTypes.joined(separator: ", ")), or *)")
        }
        body["events"] = .array(events.map { .string($0) })
        if let id = input.value("id") { body["id"] = .string(id) }
        if let path = input.value("secret-file") {
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw CLIError(ExitCode.config, "cannot read secret file '\(path)'", hint: "check the path given to --secret-file")
            }
            body["secret"] = .string(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return .post("/v1/webhooks", .object(body))
    }
}
