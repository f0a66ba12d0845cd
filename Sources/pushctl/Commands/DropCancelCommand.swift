import ArgumentParsing

/// `pushctl drop cancel`: DELETE /v1/users/{id}/drop.
enum DropCancelCommand: Command {
    static let name = "drop cancel"
    static let summary = "Cancel a user's pending drop."
    static var help: CommandHelp {
        CommandHelp(
            overview: "Cancel the user's pending profile drop (DELETE /v1/users/{id}/drop).",
            usage: ["pushctl drop cancel --user <id>"],
            options: [.value("user", "id", "The user (required).")] + ServiceClient.specs,
            examples: ["pushctl drop cancel --user alice"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        let user = try arguments.required("user", command: name)
        let response = try await ServiceClient(arguments).send("DELETE", "/v1/users/\(ServiceClient.segment(user))/drop")
        DropOutput.print(response, format: format)
        return ExitCode.ok
    }
}
