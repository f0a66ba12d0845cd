import ArgumentParsing

/// `pushctl webhooks deliveries`: GET /v1/webhooks/{id}/deliveries.
struct WebhooksDeliveriesCommand: ServiceCommand {
    let name = "webhooks deliveries"
    let summary = "Show a webhook endpoint's recent failed deliveries."
    let help = CommandHelp(
        overview: "Show the latest deliveries to an endpoint that failed at least once: still retrying, given up, "
            + "or delivered after failures (GET /v1/webhooks/{id}/deliveries).",
        usage: ["pushctl webhooks deliveries <id> [--output table|json|yaml]"],
        arguments: [("<id>", "The endpoint id.")],
        options: ServiceClient.specs,
        examples: ["pushctl webhooks deliveries crm", "pushctl webhooks deliveries crm --output yaml"])

    func request(_ input: CommandInput) -> ServiceClient.Request {
        ServiceClient.Request(method: "GET", path: "/v1/webhooks/\(ServiceClient.segment(input.positional))/deliveries")
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format, listKey: "deliveries", emptyText: "no failed deliveries")
    }
}
