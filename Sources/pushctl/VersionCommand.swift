/// `pushctl version`.
enum VersionCommand: Command {
    static let name = "version"
    static let summary = "Print pushctl's version."
    static var help: CommandHelp {
        CommandHelp(overview: summary, usage: ["pushctl version [--json]"],
                    options: [.flag("json", "Print JSON.")], examples: ["pushctl version"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        _ = try arguments.positionals([], command: name)
        if arguments.has("json") {
            Console.out(#"{"name":"pushctl","version":"\#(PushCtl.version)"}"#)
        } else {
            Console.out("pushctl \(PushCtl.version)")
        }
        return ExitCode.ok
    }
}
