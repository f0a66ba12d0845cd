import ArgumentParsing

/// `pushctl webhooks ls`: GET /v1/webhooks.
enum WebhooksListCommand: Command {
    static let name = "webhooks ls"
    static let summary = "List webhook endpoints."
    static var help: CommandHelp {
        CommandHelp(
            overview: "List the webhook endpoints, from the API and the configuration file (GET /v1/webhooks).",
            usage: ["pushctl webhooks ls [--output table|json|yaml]"],
            options: ServiceClient.specs,
            examples: ["pushctl webhooks ls", "pushctl webhooks ls --output json | jq '.webhooks[].url'"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        let response = try await ServiceClient(arguments).send("GET", "/v1/webhooks")
        ServiceOutput.print(response, format: format, listKey: "webhooks", emptyText: "no webhooks")
        return ExitCode.ok
    }
}
