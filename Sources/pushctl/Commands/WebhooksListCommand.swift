import ArgumentParsing

/// `pushctl webhooks ls`: GET /v1/webhooks.
struct WebhooksListCommand: ServiceCommand {
    let name = "webhooks ls"
    let summary = "List webhook endpoints."
    let help = CommandHelp(
        overview: "List the webhook endpoints, from the API and the configuration file (GET /v1/webhooks).",
        usage: ["pushctl webhooks ls [--output table|json|yaml]"],
        options: ServiceClient.specs,
        examples: ["pushctl webhooks ls", "pushctl webhooks ls --output json | jq '.webhooks[].url'"])

    func request(_ input: CommandInput) -> ServiceClient.Request { ServiceClient.Request(method: "GET", path: "/v1/webhooks") }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format, listKey: "webhooks", emptyText: "no webhooks")
    }
}
