import ArgumentParsing
import Foundation
import JSON

/// `pushctl mate-requests`: listing and answering mate requests.
extension ServiceCall {
    /// `pushctl mate-requests ls`: GET /v1/users/{id}/mate-requests.
    static let mateRequestsList = ServiceCall(
        "mate-requests ls", summary: "List a user's mate requests.",
        overview: "List the mate requests a user sent and received (GET /v1/users/{id}/mate-requests).",
        usage: ["pushctl mate-requests ls --user <id> [--role recipient|sender|any] [--output table|json|yaml]"],
        options: [
            .user,
            .choice("role", ["recipient", "sender", "any"], "Which requests: received, sent or both (default any)."),
        ],
        examples: ["pushctl mate-requests ls --user bob"], table: .list("mate_requests", empty: "no mate requests")
    ) { input throws(CLIError) in
        let user = try input.requiredSegment("user")
        let role = input.value("role") ?? "any"
        guard ["recipient", "sender", "any"].contains(role) else { throw input.usage("--role must be recipient, sender or any") }
        return .get("/v1/users/\(user)/mate-requests?role=\(role)")
    }

    /// `pushctl mate-requests accept`: POST /v1/mate-requests/{id}/accept.
    static let mateRequestAccept = mateRequestAnswer("accept", done: "accepted", summary: "Accept a mate request.")

    /// `pushctl mate-requests decline`: POST /v1/mate-requests/{id}/decline.
    static let mateRequestDecline = mateRequestAnswer("decline", done: "declined", summary: "Decline a mate request.")

    /// The recipient's `answer` (the path's last segment); a table prints `done` and the request id.
    private static func mateRequestAnswer(_ answer: String, done: String, summary: String) -> ServiceCall {
        let name = "mate-requests \(answer)"
        return ServiceCall(
            name, summary: summary,
            overview: "\(answer.capitalized) a mate request as its recipient (POST /v1/mate-requests/{id}/\(answer)); the sender gets a push.",
            usage: ["pushctl \(name) <request-id> --user <id>"], argument: ("<request-id>", "The mate request id."),
            options: [.value("user", "id", "The recipient answering (required).")], examples: ["pushctl \(name) 7c1e0b2a --user bob"],
            table: .line { _, input in "\(done) \(input.positional)" }
        ) { input throws(CLIError) in
            .post("/v1/mate-requests/\(input.pathSegment)/\(answer)", ["user_id": .string(try input.required("user"))])
        }
    }
}
