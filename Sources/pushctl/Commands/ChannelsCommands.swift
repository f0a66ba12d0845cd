import ArgumentParsing
import Foundation
import JSON

/// `pushctl channels add`: POST /v1/channels.
enum ChannelsAddCommand: Command {
    static let name = "channels add"
    static let summary = "Create a broadcast channel (Live Activities)."
    static var help: CommandHelp {
        CommandHelp(
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
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        var body: [String: JSONValue] = ["environment": .string(try ChannelsOptions.environment(arguments, command: name) ?? "production")]
        switch arguments.value("storage") ?? "none" {
        case "none": body["message_storage_policy"] = 0
        case "most-recent": body["message_storage_policy"] = 1
        default: throw CLIError.usage("--storage must be none or most-recent", command: name)
        }
        if let topic = arguments.value("topic") { body["topic"] = .string(topic) }
        let response = try await ServiceClient(arguments).send("POST", "/v1/channels", body: .object(body))
        if format != .table {
            ServiceOutput.print(response, format: format)
        } else {
            let channel = response.json
            Console.out(
                "created channel \(channel?["id"]?.stringValue ?? "-") (topic \(channel?["topic"]?.stringValue ?? "-"), "
                    + "\(channel?["environment"]?.stringValue ?? "-"), storage policy \(channel?["message_storage_policy"]?.intValue ?? 0))")
        }
        return ExitCode.ok
    }
}

/// `pushctl channels ls`: GET /v1/channels.
enum ChannelsListCommand: Command {
    static let name = "channels ls"
    static let summary = "List the stored broadcast channels."
    static var help: CommandHelp {
        CommandHelp(
            overview: "List the stored broadcast channels of an app (GET /v1/channels).",
            usage: ["pushctl channels ls [--environment production|development] [--topic <bundle-id>] [--output table|json|yaml]"],
            options: [
                .choice("environment", ["production", "development"], "Only this environment's channels."),
                .value("topic", "bundle-id", "The app's bundle id (default: the service's)."),
            ] + ServiceClient.specs,
            examples: ["pushctl channels ls --environment development", "pushctl channels ls --output json | jq -r '.channels[].id'"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        var query: [String] = []
        if let environment = try ChannelsOptions.environment(arguments, command: name) { query.append("environment=\(environment)") }
        if let topic = arguments.value("topic") { query.append("topic=\(ServiceClient.segment(topic))") }
        let path = "/v1/channels" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let response = try await ServiceClient(arguments).send("GET", path)
        ServiceOutput.print(response, format: format, listKey: "channels", emptyText: "no channels")
        return ExitCode.ok
    }
}

/// `pushctl channels rm`: DELETE /v1/channels/{id}.
enum ChannelsRemoveCommand: Command {
    static let name = "channels rm"
    static let summary = "Delete a broadcast channel."
    static var help: CommandHelp {
        CommandHelp(
            overview: "Delete a broadcast channel at Apple and forget it (DELETE /v1/channels/{id}).",
            usage: ["pushctl channels rm <channel-id> [--environment production|development]"],
            arguments: [("<channel-id>", "The id APNs gave the channel (base64).")],
            options: [.choice("environment", ["production", "development"], "Needed when the id exists in both.")] + ServiceClient.specs,
            examples: ["pushctl channels rm dHdpbmNoYW5uZWw="])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        let id = try arguments.positionals(["channel-id"], command: name)[0]
        var path = "/v1/channels/\(ServiceClient.segment(id))"
        if let environment = try ChannelsOptions.environment(arguments, command: name) { path += "?environment=\(environment)" }
        let response = try await ServiceClient(arguments).send("DELETE", path)
        if format == .table { Console.out("deleted channel \(id)") } else { ServiceOutput.print(response, format: format) }
        return ExitCode.ok
    }
}

/// Options the channel commands share.
enum ChannelsOptions {
    /// `--environment`, checked.
    static func environment(_ arguments: ParsedArguments, command: String) throws(CLIError) -> String? {
        guard let environment = arguments.value("environment") else { return nil }
        guard environment == "production" || environment == "development" else {
            throw CLIError.usage("--environment must be production or development", command: command)
        }
        return environment
    }
}
