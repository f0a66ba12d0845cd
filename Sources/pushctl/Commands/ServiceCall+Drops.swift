import ArgumentParsing
import Foundation
import JSON

/// `pushctl drop`: profile drops.
extension ServiceCall {
    /// `pushctl drop report`: POST /v1/drops.
    static let dropReport = ServiceCall(
        "drop report", summary: "Report that a user's phone sees a peer nearby.",
        overview: "Report a profile drop: the user's phone measured the peer at this distance (POST /v1/drops).",
        usage: ["pushctl drop report --user <id> --peer <id> --distance <m> [--direction x,y,z]"],
        options: [
            .value("user", "id", "The reporting user (required)."),
            .value("peer", "id", "The peer seen (required)."),
            .value("distance", "m", "Distance in metres (required)."),
            .value("direction", "x,y,z", "Unit direction vector, when the phone measured one."),
        ],
        examples: ["pushctl drop report --user alice --peer bob --distance 0.2 --direction 0,0,-1"], table: .drop
    ) { input throws(CLIError) in
        let user = try input.required("user")
        let peer = try input.required("peer")
        guard let distance = try input.double("distance") else { throw input.usage("missing required option '--distance'") }
        var body: [String: JSONValue] = ["user_id": .string(user), "peer_id": .string(peer), "distance_m": .double(distance)]
        if let text = input.value("direction") {
            let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 3 else { throw input.usage("--direction needs x,y,z, got '\(text)'") }
            body["direction"] = ["x": .double(parts[0]), "y": .double(parts[1]), "z": .double(parts[2])]
        }
        return .post("/v1/drops", .object(body))
    }

    /// `pushctl drop cancel`: DELETE /v1/users/{id}/drop.
    static let dropCancel = userDrop(
        "drop cancel", "DELETE", summary: "Cancel a user's pending drop.", overview: "Cancel the user's pending profile drop",
        usage: "pushctl drop cancel --user <id>")

    /// `pushctl drop status`: GET /v1/users/{id}/drop.
    static let dropStatus = userDrop(
        "drop status", "GET", summary: "Show a user's current drop.", overview: "Show the user's current profile drop, if any",
        usage: "pushctl drop status --user <id> [--output table|json|yaml]")

    /// A request to `--user`'s current drop with `method`.
    private static func userDrop(_ name: String, _ method: String, summary: String, overview: String, usage: String) -> ServiceCall {
        ServiceCall(
            name, summary: summary, overview: "\(overview) (\(method) /v1/users/{id}/drop).", usage: [usage],
            options: [.user], examples: ["pushctl \(name) --user alice"], table: .drop
        ) { input throws(CLIError) in
            ServiceClient.Request(method: method, path: "/v1/users/\(try input.requiredSegment("user"))/drop")
        }
    }
}
