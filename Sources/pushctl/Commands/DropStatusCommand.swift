import ArgumentParsing

/// `pushctl drop status`: GET /v1/users/{id}/drop.
enum DropStatusCommand: Command {
    static let name = "drop status"
    static let summary = "Show a user's current drop."
    static var help: CommandHelp {
        CommandHelp(
            overview: "Show the user's current profile drop, if any (GET /v1/users/{id}/drop).",
            usage: ["pushctl drop status --user <id> [--output table|json|yaml]"],
            options: [.value("user", "id", "The user (required).")] + ServiceClient.specs,
            examples: ["pushctl drop status --user alice"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        let user = try arguments.required("user", command: name)
        let response = try await ServiceClient(arguments).send("GET", "/v1/users/\(ServiceClient.segment(user))/drop")
        DropOutput.print(response, format: format)
        return ExitCode.ok
    }
}
