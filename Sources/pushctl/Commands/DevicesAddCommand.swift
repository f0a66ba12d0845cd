import APNSCore
import ArgumentParsing
import JSON

/// `pushctl devices add`: POST /v1/devices.
enum DevicesAddCommand: Command {
    static let name = "devices add"
    static let summary = "Register a device token for a user."
    static var help: CommandHelp {
        CommandHelp(
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
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        let tokenText = try arguments.required("token", command: name)
        let token: DeviceToken
        do { token = try DeviceToken(tokenText) } catch { throw CLIError.usage("bad --token: \(error)", command: name) }
        var body: [String: JSONValue] = ["token": .string(token.hex), "user_id": .string(try arguments.required("user", command: name))]
        if let topic = arguments.value("topic") { body["topic"] = .string(topic) }
        let environment = arguments.value("environment") ?? "production"
        guard environment == "production" || environment == "development" else {
            throw CLIError.usage("--environment must be production or development", command: name)
        }
        body["environment"] = .string(environment)
        switch arguments.value("kind") ?? "apns" {
        case "apns": break
        case "push-to-start":
            body["kind"] = "push_to_start"
            body["attributes_type"] = .string(try arguments.required("attributes-type", command: name))
        case "live-activity":
            body["kind"] = "live_activity"
            body["activity_id"] = .string(try arguments.required("activity-id", command: name))
        default: throw CLIError.usage("--kind must be apns, push-to-start or live-activity", command: name)
        }
        let response = try await ServiceClient(arguments).send("POST", "/v1/devices", body: .object(body))
        if format != .table {
            ServiceOutput.print(response, format: format)
        } else {
            let device = response.json
            Console.out(
                "registered \(device?["kind"]?.stringValue.map { $0 + " token " } ?? "")"
                    + "\(device?["token"]?.stringValue ?? token.hex) for \(device?["user_id"]?.stringValue ?? "")"
                    + " (topic \(device?["topic"]?.stringValue ?? "-"), \(device?["environment"]?.stringValue ?? environment))")
        }
        return ExitCode.ok
    }
}
