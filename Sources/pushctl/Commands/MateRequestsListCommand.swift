import ArgumentParsing

/// `pushctl mate-requests ls`: GET /v1/users/{id}/mate-requests.
enum MateRequestsListCommand: Command {
    static let name = "mate-requests ls"
    static let summary = "List a user's mate requests."
    static var help: CommandHelp {
        CommandHelp(
            overview: "List the mate requests a user sent and received (GET /v1/users/{id}/mate-requests).",
            usage: ["pushctl mate-requests ls --user <id> [--role recipient|sender|any] [--output table|json|yaml]"],
            options: [
                .value("user", "id", "The user (required)."),
                .choice("role", ["recipient", "sender", "any"], "Which requests: received, sent or both (default any)."),
            ] + ServiceClient.specs,
            examples: ["pushctl mate-requests ls --user bob"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        let user = try arguments.required("user", command: name)
        let role = arguments.value("role") ?? "any"
        guard ["recipient", "sender", "any"].contains(role) else {
            throw CLIError.usage("--role must be recipient, sender or any", command: name)
        }
        let response = try await ServiceClient(arguments).send("GET", "/v1/users/\(ServiceClient.segment(user))/mate-requests?role=\(role)")
        ServiceOutput.print(response, format: format, listKey: "mate_requests", emptyText: "no mate requests")
        return ExitCode.ok
    }
}
