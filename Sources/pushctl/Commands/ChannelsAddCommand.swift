import ArgumentParsing
import JSON

/// `pushctl channels add`: POST /v1/channels.
struct ChannelsAddCommand: ServiceCommand {
    let name = "channels add"
    let summary = "Create a broadcast channel (Live Activities)."
    let help = CommandHelp(
        overview: "Create an iOS 18 broadcast channel with Apple's channel management API and store it (POST /v1/channels).",
        usage: [
            "pushctl channels add [--environment production|development (default production)] [--storage none|most-recent] [--topic <bundle-id>]"
        ],
        options: [
            .choice("environment", ["production", "development"], "Which APNs environment (default production)."),
            .choice(
                "storage", ["none", "most-recent"],
                "Message storage policy: none (0, broadcasts use expiration 0; default) or most-recent (1)."),
            .value("topic", "bundle-id", "The app's bundle id (default: the service's)."),
        ] + ServiceClient.specs,
        examples: ["pushctl channels add --environment development --storage most-recent"])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        var body: [String: JSONValue] = ["environment": .string(try input.environment() ?? "production")]
        switch input.value("storage") ?? "none" {
        case "none": body["message_storage_policy"] = 0
        case "most-recent": body["message_storage_policy"] = 1
        default: throw input.usage("--storage must be none or most-recent")
        }
        if let topic = input.value("topic") { body["topic"] = .string(topic) }
        return ServiceClient.Request(method: "POST", path: "/v1/channels", body: .object(body))
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format) {
            let channel = response.json
            Console.out(
                "created channel \(channel?["id"]?.stringValue ?? "-") (topic \(channel?["topic"]?.stringValue ?? "-"), "
                    + "\(channel?["environment"]?.stringValue ?? "-"), storage policy \(channel?["message_storage_policy"]?.intValue ?? 0))")
        }
    }
}
