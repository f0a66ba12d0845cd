import ArgumentParsing

/// `pushctl webhooks deliveries`: GET /v1/webhooks/{id}/deliveries.
enum WebhooksDeliveriesCommand: Command {
    static let name = "webhooks deliveries"
    static let summary = "Show a webhook endpoint's recent failed deliveries."
    static var help: CommandHelp {
        CommandHelp(
            overview: "Show the latest deliveries to an endpoint that failed at least once: still retrying, given up, "
                + "or delivered after failures (GET /v1/webhooks/{id}/deliveries).",
            usage: ["pushctl webhooks deliveries <id> [--output table|json|yaml]"], arguments: [("<id>", "The endpoint id.")],
            options: ServiceClient.specs, examples: ["pushctl webhooks deliveries crm", "pushctl webhooks deliveries crm --output yaml"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        let id = try arguments.positionals(["id"], command: name)[0]
        let response = try await ServiceClient(arguments).send("GET", "/v1/webhooks/\(ServiceClient.segment(id))/deliveries")
        ServiceOutput.print(response, format: format, listKey: "deliveries", emptyText: "no failed deliveries")
        return ExitCode.ok
    }
}
