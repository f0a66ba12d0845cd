import ArgumentParsing

/// `pushctl pushes get`: GET /v1/pushes/{id}.
enum PushesGetCommand: Command {
    static let name = "pushes get"
    static let summary = "Show a push's notifications and their outcomes."
    static var help: CommandHelp {
        CommandHelp(
            overview: "Show every notification of a push with its state, reason and apns-id (GET /v1/pushes/{id}).",
            usage: ["pushctl pushes get <push-id> [--output table|json|yaml]"], arguments: [("<push-id>", "The push_id 'send' printed.")],
            options: ServiceClient.specs,
            examples: ["pushctl pushes get 01936f4e-...", "pushctl pushes get 01936f4e-... --output json | jq .counts"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        let id = try arguments.positionals(["push-id"], command: name)[0]
        let response = try await ServiceClient(arguments).send("GET", "/v1/pushes/\(ServiceClient.segment(id))")
        if format == .table {
            PushOutput.print(response.json, waited: true)
        } else {
            ServiceOutput.print(response, format: format)
        }
        return PushTally(response.json).undelivered > 0 ? ExitCode.rejected : ExitCode.ok
    }
}
