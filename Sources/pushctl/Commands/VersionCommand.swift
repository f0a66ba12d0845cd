import ArgumentParsing
import JSON

/// `pushctl version`.
enum VersionCommand: Command {
    static let name = "version"
    static let summary = "Print pushctl's version."
    static var help: CommandHelp {
        CommandHelp(
            overview: summary, usage: ["pushctl version [--output table|json|yaml]"],
            options: OutputFormat.specs, examples: ["pushctl version", "pushctl version --output yaml"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        format.print(["name": "pushctl", "version": .string(PushCtl.version)]) {
            Console.out("pushctl \(PushCtl.version)")
        }
        return ExitCode.ok
    }
}
