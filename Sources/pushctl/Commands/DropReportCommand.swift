import APNSCore
import ArgumentParsing
import Foundation
import JSON

/// `pushctl drop report`: POST /v1/drops.
struct DropReportCommand: ServiceCommand {
    let name = "drop report"
    let summary = "Report that a user's phone sees a peer nearby."
    let help = CommandHelp(
        overview: "Report a profile drop: the user's phone measured the peer at this distance (POST /v1/drops).",
        usage: ["pushctl drop report --user <id> --peer <id> --distance <m> [--direction x,y,z]"],
        options: [
            .value("user", "id", "The reporting user (required)."),
            .value("peer", "id", "The peer seen (required)."),
            .value("distance", "m", "Distance in metres (required)."),
            .value("direction", "x,y,z", "Unit direction vector, when the phone measured one."),
        ] + ServiceClient.specs,
        examples: ["pushctl drop report --user alice --peer bob --distance 0.2 --direction 0,0,-1"])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        let user = try input.required("user")
        let peer = try input.required("peer")
        guard let distance = try input.double("distance") else { throw input.usage("missing required option '--distance'") }
        var body: [String: JSONValue] = ["user_id": .string(user), "peer_id": .string(peer), "distance_m": .double(distance)]
        if let text = input.value("direction") {
            let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 3 else { throw input.usage("--direction needs x,y,z, got '\(text)'") }
            body["direction"] = ["x": .double(parts[0]), "y": .double(parts[1]), "z": .double(parts[2])]
        }
        return ServiceClient.Request(method: "POST", path: "/v1/drops", body: .object(body))
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) { DropOutput.print(response, format: input.format) }
}
