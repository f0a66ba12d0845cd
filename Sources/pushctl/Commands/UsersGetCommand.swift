import ArgumentParsing

/// `pushctl users get`: GET /v1/users/{id}.
struct UsersGetCommand: ServiceCommand {
    let name = "users get"
    let summary = "Show a user's profile card."
    let help = CommandHelp(
        overview: "Show a user's profile card (GET /v1/users/{id}).",
        usage: ["pushctl users get <id> [--output table|json|yaml]"],
        arguments: [("<id>", "The user id.")],
        options: ServiceClient.specs,
        examples: ["pushctl users get alice"])

    func request(_ input: CommandInput) -> ServiceClient.Request {
        ServiceClient.Request(method: "GET", path: "/v1/users/\(ServiceClient.segment(input.positional))")
    }
}
