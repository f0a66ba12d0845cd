import ArgumentParsing

/// `pushctl devices ls`: GET /v1/users/{id}/devices.
struct DevicesListCommand: ServiceCommand {
    let name = "devices ls"
    let summary = "List a user's devices."
    let help = CommandHelp(
        overview: "List a user's devices (GET /v1/users/{id}/devices).",
        usage: ["pushctl devices ls --user <id> [--output table|json|yaml]"],
        options: [.value("user", "id", "The user (required).")] + ServiceClient.specs,
        examples: ["pushctl devices ls --user alice", "pushctl devices ls --user alice --output json | jq '.devices[].token'"])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        ServiceClient.Request(method: "GET", path: "/v1/users/\(ServiceClient.segment(try input.required("user")))/devices")
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format, listKey: "devices", emptyText: "no devices")
    }
}
