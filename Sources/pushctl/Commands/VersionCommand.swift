import ArgumentParsing
import JSON

/// `pushctl version`.
struct VersionCommand: Command {
    let name = "version"
    let summary = "Print pushctl's version."
    var help: CommandHelp {
        CommandHelp(
            overview: summary, usage: ["pushctl version [--output table|json|yaml]"],
            options: OutputFormat.specs, examples: ["pushctl version", "pushctl version --output yaml"])
    }

    func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        try CommandInput(arguments, for: self).format.print(["name": "pushctl", "version": .string(PushCtl.version)]) {
            Console.out("pushctl \(PushCtl.version)")
        }
        return ExitCode.ok
    }
}
