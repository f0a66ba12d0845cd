import ArgumentParsing

/// `pushctl users get`: GET /v1/users/{id}.
enum UsersGetCommand: Command {
    static let name = "users get"
    static let summary = "Show a user's profile card."
    static var help: CommandHelp {
        CommandHelp(
            overview: "Show a user's profile card (GET /v1/users/{id}).",
            usage: ["pushctl users get <id> [--output table|json|yaml]"], arguments: [("<id>", "The user id.")],
            options: ServiceClient.specs, examples: ["pushctl users get alice"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        let id = try arguments.positionals(["id"], command: name)[0]
        let response = try await ServiceClient(arguments).send("GET", "/v1/users/\(ServiceClient.segment(id))")
        ServiceOutput.print(response, format: format)
        return ExitCode.ok
    }
}
