import ArgumentParsing

/// `pushctl drop cancel` and `drop status`: DELETE or GET /v1/users/{id}/drop.
struct UserDropCommand: ServiceCommand {
    static let cancel = UserDropCommand(
        name: "drop cancel", method: "DELETE", summary: "Cancel a user's pending drop.",
        overview: "Cancel the user's pending profile drop", usage: "pushctl drop cancel --user <id>")
    static let status = UserDropCommand(
        name: "drop status", method: "GET", summary: "Show a user's current drop.",
        overview: "Show the user's current profile drop, if any", usage: "pushctl drop status --user <id> [--output table|json|yaml]")

    let name: String
    let method: String
    let summary: String
    let overview: String
    let usage: String

    var help: CommandHelp {
        CommandHelp(
            overview: "\(overview) (\(method) /v1/users/{id}/drop).", usage: [usage],
            options: [.value("user", "id", "The user (required).")] + ServiceClient.specs,
            examples: ["pushctl \(name) --user alice"])
    }

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        ServiceClient.Request(method: method, path: "/v1/users/\(ServiceClient.segment(try input.required("user")))/drop")
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) { DropOutput.print(response, format: input.format) }
}
