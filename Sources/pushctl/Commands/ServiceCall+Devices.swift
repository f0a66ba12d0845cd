import APNSCore
import ArgumentParsing
import JSON

/// `pushctl devices`: a user's device tokens.
extension ServiceCall {
    /// `pushctl devices add`: POST /v1/devices.
    static let devicesAdd = ServiceCall(
        "devices add", summary: "Register a device token for a user.",
        overview: "Register a device token for a user (POST /v1/devices).",
        usage: [
            "pushctl devices add --token <hex> --user <id> [--topic <bundle-id>] [--environment production|development (default production)]",
            "    [--kind apns|push-to-start|live-activity] [--attributes-type <name>] [--activity-id <id>]",
        ],
        options: [
            .value("token", "hex", "The device token (required)."),
            .value("user", "id", "The owner (required)."),
            .topic,
            .environment("Which APNs the device uses (default production)."),
            .choice(
                "kind", ["apns", "push-to-start", "live-activity"],
                "The token's kind: the device's APNs token (default), an ActivityKit push-to-start token, or a Live Activity's update token."),
            .value("attributes-type", "name", "With --kind push-to-start: the ActivityAttributes type it starts."),
            .value("activity-id", "id", "With --kind live-activity: the activity the update token belongs to."),
        ],
        examples: [
            "pushctl devices add --token 3f2a...c9 --user alice --environment development",
            "pushctl devices add --token 7b1e...04 --user alice --kind push-to-start --attributes-type WalkAttributes",
        ],
        table: .line { response, input in
            let device = response.json
            let token = (try? DeviceToken(input.value("token") ?? ""))?.hex ?? ""
            let environment = input.value("environment") ?? "production"
            return "registered \(device?["kind"]?.stringValue.map { $0 + " token " } ?? "")"
                + "\(device?["token"]?.stringValue ?? token) for \(device?["user_id"]?.stringValue ?? "")"
                + " (topic \(device?["topic"]?.stringValue ?? "-"), \(device?["environment"]?.stringValue ?? environment))"
        }, request: addDevice)

    /// `pushctl devices rm`: DELETE /v1/devices/{token}.
    static let devicesRemove = ServiceCall(
        "devices rm", summary: "Remove a device token.", overview: "Remove a device token (DELETE /v1/devices/{token}).",
        usage: ["pushctl devices rm <token>"], argument: ("<token>", "The device token (hex)."), examples: ["pushctl devices rm 3f2a...c9"],
        table: .line { _, input in "removed \((try? DeviceToken(input.positional))?.hex ?? input.positional)" }
    ) { input throws(CLIError) in .delete("/v1/devices/\(try input.deviceToken(input.positional, label: "token").hex)") }

    /// `pushctl devices ls`: GET /v1/users/{id}/devices.
    static let devicesList = ServiceCall(
        "devices ls", summary: "List a user's devices.", overview: "List a user's devices (GET /v1/users/{id}/devices).",
        usage: ["pushctl devices ls --user <id> [--output table|json|yaml]"], options: [.user],
        examples: ["pushctl devices ls --user alice", "pushctl devices ls --user alice --output json | jq '.devices[].token'"],
        table: .list("devices", empty: "no devices")
    ) { input throws(CLIError) in .get("/v1/users/\(try input.requiredSegment("user"))/devices") }

    private static func addDevice(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
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
        return .post("/v1/devices", .object(body))
    }
}
