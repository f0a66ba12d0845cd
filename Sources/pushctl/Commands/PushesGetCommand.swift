import ArgumentParsing

/// `pushctl pushes get`: GET /v1/pushes/{id}.
struct PushesGetCommand: ServiceCommand {
    let name = "pushes get"
    let summary = "Show a push's notifications and their outcomes."
    let help = CommandHelp(
        overview: "Show every notification of a push with its state, reason and apns-id (GET /v1/pushes/{id}).",
        usage: ["pushctl pushes get <push-id> [--output table|json|yaml]"],
        arguments: [("<push-id>", "The push_id 'send' printed.")],
        options: ServiceClient.specs,
        examples: ["pushctl pushes get 01936f4e-...", "pushctl pushes get 01936f4e-... --output json | jq .counts"])

    func request(_ input: CommandInput) -> ServiceClient.Request {
        ServiceClient.Request(method: "GET", path: "/v1/pushes/\(ServiceClient.segment(input.positional))")
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        PushOutput.print(response, format: input.format, waited: true)
    }

    func exitCode(_ response: ServiceClient.Response) -> Int32 { PushOutput.exitCode(response) }
}
