import ArgumentParsing

/// `pushctl channels rm`: DELETE /v1/channels/{id}.
struct ChannelsRemoveCommand: ServiceCommand {
    let name = "channels rm"
    let summary = "Delete a broadcast channel."
    let help = CommandHelp(
        overview: "Delete a broadcast channel at Apple and forget it (DELETE /v1/channels/{id}).",
        usage: ["pushctl channels rm <channel-id> [--environment production|development]"],
        arguments: [("<channel-id>", "The id APNs gave the channel (base64).")],
        options: [.choice("environment", ["production", "development"], "Needed when the id exists in both.")] + ServiceClient.specs,
        examples: ["pushctl channels rm dHdpbmNoYW5uZWw="])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        let path = "/v1/channels/\(ServiceClient.segment(input.positional))"
        return ServiceClient.Request(method: "DELETE", path: path + (try input.environment().map { "?environment=\($0)" } ?? ""))
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format) { Console.out("deleted channel \(input.positional)") }
    }
}
