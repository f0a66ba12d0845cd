import ArgumentParsing

/// `pushctl mate-requests ls`: GET /v1/users/{id}/mate-requests.
struct MateRequestsListCommand: ServiceCommand {
    let name = "mate-requests ls"
    let summary = "List a user's mate requests."
    let help = CommandHelp(
        overview: "List the mate requests a user sent and received (GET /v1/users/{id}/mate-requests).",
        usage: ["pushctl mate-requests ls --user <id> [--role recipient|sender|any] [--output table|json|yaml]"],
        options: [
            .value("user", "id", "The user (required)."),
            .choice("role", ["recipient", "sender", "any"], "Which requests: received, sent or both (default any)."),
        ] + ServiceClient.specs,
        examples: ["pushctl mate-requests ls --user bob"])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        let user = try input.required("user")
        let role = input.value("role") ?? "any"
        guard ["recipient", "sender", "any"].contains(role) else { throw input.usage("--role must be recipient, sender or any") }
        return ServiceClient.Request(method: "GET", path: "/v1/users/\(ServiceClient.segment(user))/mate-requests?role=\(role)")
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format, listKey: "mate_requests", emptyText: "no mate requests")
    }
}
