import APNSCore
import ArgumentParsing
import JSON

/// `pushctl devices add`: POST /v1/devices.
struct DevicesAddCommand: ServiceCommand {
    let name = "devices add"
    let summary = "Register a device token for a user."
    let help = CommandHelp(
        overview: "Register a device token for a user (POST /v1/devices).",
        usage: [
            "pushctl devices add --token <hex> --user <id> [--topic <bundle-id>] [--environment production|development (default production)]",
            "    [--kind apns|push-to-start|live-activity] [--attributes-type <name>] [--activity-id <id>]",
        ],
        options: [
            .value("token", "hex", "The device token (required)."),
            .value("user", "id", "The owner (required)."),
            .value("topic", "bundle-id", "The app's bundle id (default: the service's)."),
            .choice("environment", ["production", "development"], "Which APNs the device uses (default production)."),
            .choice(
                "kind", ["apns", "push-to-start", "live-activity"],
                "The token's kind: the device's APNs token (default), an ActivityKit push-to-start token, or a Live Activity's update token."),
            .value("attributes-type", "name", "With --kind push-to-start: the ActivityAttributes type it starts."),
            .value("activity-id", "id", "With --kind live-activity: the activity the update token belongs to."),
        ] + ServiceClient.specs,
        examples: [
            "pushctl devices add --token 3f2a...c9 --user alice --environment development",
            "pushctl devices add --token 7b1e...04 --user alice --kind push-to-start --attributes-type WalkAttributes",
        ])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        let token = try input.deviceToken(try input.required("token"), label: "--token")
        var body: [String: JSONValue] = ["token": .string(token.hex), "user_id": .string(try input.required("user"))]
        if let topic = input.value("topic") { body["topic"] = .string(topic) }
        body["environment"] = .string(try input.environment() ?? "production")
        switch input.value("kind") ?? "apns" {
        case "apns": break
        case "push-to-start":
            body["kind"] = "push_to_start"
            body["attributes_type"] = .string(try input.required("attributes-type"))
        case "live-activity":
            body["kind"] = "live_activity"
            body["activity_id"] = .string(try input.required("activity-id"))
        default: throw input.usage("--kind must be apns, push-to-start or live-activity")
        }
        return ServiceClient.Request(method: "POST", path: "/v1/devices", body: .object(body))
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        let token = (try? DeviceToken(input.value("token") ?? ""))?.hex ?? ""
        let environment = input.value("environment") ?? "production"
        ServiceOutput.print(response, format: input.format) {
            let device = response.json
            Console.out(
                "registered \(device?["kind"]?.stringValue.map { $0 + " token " } ?? "")"
                    + "\(device?["token"]?.stringValue ?? token) for \(device?["user_id"]?.stringValue ?? "")"
                    + " (topic \(device?["topic"]?.stringValue ?? "-"), \(device?["environment"]?.stringValue ?? environment))")
        }
    }
}
