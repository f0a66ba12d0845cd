import ArgumentParsing
import Foundation
import JSON

/// `pushctl mate-requests accept` and `decline`: POST /v1/mate-requests/{id}/{answer}.
struct MateRequestAnswerCommand: ServiceCommand {
    static let accept = MateRequestAnswerCommand(answer: "accept", done: "accepted", summary: "Accept a mate request.")
    static let decline = MateRequestAnswerCommand(answer: "decline", done: "declined", summary: "Decline a mate request.")

    /// The path's last segment: `accept` or `decline`.
    let answer: String
    /// What a table prints: `accepted` or `declined`.
    let done: String
    let summary: String
    var name: String { "mate-requests \(answer)" }

    var help: CommandHelp {
        CommandHelp(
            overview: "\(answer.capitalized) a mate request as its recipient (POST /v1/mate-requests/{id}/\(answer)); the sender gets a push.",
            usage: ["pushctl \(name) <request-id> --user <id>"],
            arguments: [("<request-id>", "The mate request id.")],
            options: [.value("user", "id", "The recipient answering (required).")] + ServiceClient.specs,
            examples: ["pushctl \(name) 7c1e0b2a --user bob"])
    }

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        ServiceClient.Request(
            method: "POST", path: "/v1/mate-requests/\(ServiceClient.segment(input.positional))/\(answer)",
            body: ["user_id": .string(try input.required("user"))])
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format) { Console.out("\(done) \(input.positional)") }
    }
}
