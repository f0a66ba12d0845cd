import ArgumentParsing

/// `pushctl devices ls`: GET /v1/users/{id}/devices.
enum DevicesListCommand: Command {
    static let name = "devices ls"
    static let summary = "List a user's devices."
    static var help: CommandHelp {
        CommandHelp(
            overview: "List a user's devices (GET /v1/users/{id}/devices).",
            usage: ["pushctl devices ls --user <id> [--output table|json|yaml]"],
            options: [.value("user", "id", "The user (required).")] + ServiceClient.specs,
            examples: ["pushctl devices ls --user alice", "pushctl devices ls --user alice --output json | jq '.devices[].token'"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        let user = try arguments.required("user", command: name)
        let response = try await ServiceClient(arguments).send("GET", "/v1/users/\(ServiceClient.segment(user))/devices")
        ServiceOutput.print(response, format: format, listKey: "devices", emptyText: "no devices")
        return ExitCode.ok
    }
}
