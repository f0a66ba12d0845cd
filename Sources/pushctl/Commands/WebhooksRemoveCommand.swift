import ArgumentParsing

/// `pushctl webhooks rm`: DELETE /v1/webhooks/{id}.
enum WebhooksRemoveCommand: Command {
    static let name = "webhooks rm"
    static let summary = "Remove a webhook endpoint."
    static var help: CommandHelp {
        CommandHelp(
            overview: "Remove a webhook endpoint and the events not yet delivered to it (DELETE /v1/webhooks/{id}).",
            usage: ["pushctl webhooks rm <id>"], arguments: [("<id>", "The endpoint id.")],
            options: ServiceClient.specs, examples: ["pushctl webhooks rm crm"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        let id = try arguments.positionals(["id"], command: name)[0]
        let response = try await ServiceClient(arguments).send("DELETE", "/v1/webhooks/\(ServiceClient.segment(id))")
        if format == .table { Console.out("removed webhook \(id)") } else { ServiceOutput.print(response, format: format) }
        return ExitCode.ok
    }
}
