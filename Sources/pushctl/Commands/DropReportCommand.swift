import APNSCore
import ArgumentParsing
import Foundation
import JSON

/// `pushctl drop report`: POST /v1/drops.
enum DropReportCommand: Command {
    static let name = "drop report"
    static let summary = "Report that a user's phone sees a peer nearby."
    static var help: CommandHelp {
        CommandHelp(
            overview: "Report a profile drop: the user's phone measured the peer at this distance (POST /v1/drops).",
            usage: ["pushctl drop report --user <id> --peer <id> --distance <m> [--direction x,y,z]"],
            options: [
                .value("user", "id", "The reporting user (required)."),
                .value("peer", "id", "The peer seen (required)."),
                .value("distance", "m", "Distance in metres (required)."),
                .value("direction", "x,y,z", "Unit direction vector, when the phone measured one."),
            ] + ServiceClient.specs,
            examples: ["pushctl drop report --user alice --peer bob --distance 0.2 --direction 0,0,-1"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        let user = try arguments.required("user", command: name)
        let peer = try arguments.required("peer", command: name)
        guard let distance = try arguments.double("distance", command: name) else {
            throw CLIError.usage("missing required option '--distance'", command: name)
        }
        var body: [String: JSONValue] = ["user_id": .string(user), "peer_id": .string(peer), "distance_m": .double(distance)]
        if let text = arguments.value("direction") {
            let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 3 else { throw CLIError.usage("--direction needs x,y,z, got '\(text)'", command: name) }
            body["direction"] = ["x": .double(parts[0]), "y": .double(parts[1]), "z": .double(parts[2])]
        }
        let response = try await ServiceClient(arguments).send("POST", "/v1/drops", body: .object(body))
        DropOutput.print(response, format: format)
        return ExitCode.ok
    }
}

/// Readable output for drop answers: `{"state", "drop": {...}, "mate_requests"?: [...]}`.
enum DropOutput {
    static func print(_ response: ServiceClient.Response, format: OutputFormat) {
        guard format == .table, let value = response.json, let state = value["state"]?.stringValue else {
            ServiceOutput.print(response, format: format)
            return
        }
        let drop = value["drop"]
        Console.out(
            "drop \(drop?["id"]?.stringValue ?? "-"): \(state)"
                + " (\(drop?["initiator_id"]?.stringValue ?? "?") -> \(drop?["peer_id"]?.stringValue ?? "?"))")
        if let requests = value["mate_requests"]?.arrayValue {
            ServiceOutput.table(requests, emptyText: "no mate requests")
        }
    }
}
