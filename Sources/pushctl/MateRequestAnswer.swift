import APNSCore
import ArgumentParsing
import Foundation
import JSON

/// What `mate-requests accept` and `decline` share: POST /v1/mate-requests/{id}/{answer}.
enum MateRequestAnswer {
    static func help(_ answer: String, name: String) -> CommandHelp {
        CommandHelp(
            overview: "\(answer.capitalized) a mate request as its recipient (POST /v1/mate-requests/{id}/\(answer)); the sender gets a push.",
            usage: ["pushctl \(name) <request-id> --user <id>"], arguments: [("<request-id>", "The mate request id.")],
            options: [.value("user", "id", "The recipient answering (required).")] + ServiceClient.specs,
            examples: ["pushctl \(name) 7c1e0b2a --user bob"])
    }

    static func run(_ answer: String, name: String, _ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        let id = try arguments.positionals(["request-id"], command: name)[0]
        let user = try arguments.required("user", command: name)
        let response = try await ServiceClient(arguments).send(
            "POST", "/v1/mate-requests/\(ServiceClient.segment(id))/\(answer)", body: ["user_id": .string(user)])
        if format == .table {
            Console.out("\(answer == "accept" ? "accepted" : "declined") \(id)")
        } else {
            ServiceOutput.print(response, format: format)
        }
        return ExitCode.ok
    }
}

/// `pushctl mate-requests accept`.
enum MateRequestsAcceptCommand: Command {
    static let name = "mate-requests accept"
    static let summary = "Accept a mate request."
    static var help: CommandHelp { MateRequestAnswer.help("accept", name: name) }
    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        try await MateRequestAnswer.run("accept", name: name, arguments)
    }
}

/// `pushctl mate-requests decline`.
enum MateRequestsDeclineCommand: Command {
    static let name = "mate-requests decline"
    static let summary = "Decline a mate request."
    static var help: CommandHelp { MateRequestAnswer.help("decline", name: name) }
    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        try await MateRequestAnswer.run("decline", name: name, arguments)
    }
}
