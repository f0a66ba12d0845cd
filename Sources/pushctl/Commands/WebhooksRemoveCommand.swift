import ArgumentParsing

/// `pushctl webhooks rm`: DELETE /v1/webhooks/{id}.
struct WebhooksRemoveCommand: ServiceCommand {
    let name = "webhooks rm"
    let summary = "Remove a webhook endpoint."
    let help = CommandHelp(
        overview: "Remove a webhook endpoint and the events not yet delivered to it (DELETE /v1/webhooks/{id}).",
        usage: ["pushctl webhooks rm <id>"],
        arguments: [("<id>", "The endpoint id.")],
        options: ServiceClient.specs,
        examples: ["pushctl webhooks rm crm"])

    func request(_ input: CommandInput) -> ServiceClient.Request {
        ServiceClient.Request(method: "DELETE", path: "/v1/webhooks/\(ServiceClient.segment(input.positional))")
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format) { Console.out("removed webhook \(input.positional)") }
    }
}
