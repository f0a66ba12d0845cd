import ArgumentParsing

/// `pushctl channels ls`: GET /v1/channels.
struct ChannelsListCommand: ServiceCommand {
    let name = "channels ls"
    let summary = "List the stored broadcast channels."
    let help = CommandHelp(
        overview: "List the stored broadcast channels of an app (GET /v1/channels).",
        usage: ["pushctl channels ls [--environment production|development] [--topic <bundle-id>] [--output table|json|yaml]"],
        options: [
            .choice("environment", ["production", "development"], "Only this environment's channels."),
            .value("topic", "bundle-id", "The app's bundle id (default: the service's)."),
        ] + ServiceClient.specs,
        examples: ["pushctl channels ls --environment development", "pushctl channels ls --output json | jq -r '.channels[].id'"])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        var query: [String] = []
        if let environment = try input.environment() { query.append("environment=\(environment)") }
        if let topic = input.value("topic") { query.append("topic=\(ServiceClient.segment(topic))") }
        return ServiceClient.Request(method: "GET", path: "/v1/channels" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format, listKey: "channels", emptyText: "no channels")
    }
}
