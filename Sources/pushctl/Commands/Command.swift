import ArgumentParsing

/// A leaf command: its help (which also lists the options the parser accepts) and its action.
protocol Command: Sendable {
    /// The path after `pushctl`, e.g. `devices add`.
    var name: String { get }
    /// One line for the parent's SUBCOMMANDS list.
    var summary: String { get }
    /// The full help.
    var help: CommandHelp { get }
    /// Runs with parsed arguments and returns the exit code.
    func run(_ arguments: ParsedArguments) async throws -> ExitCode
}

/// A command with subcommands, e.g. `devices`.
struct CommandGroup {
    let name: String
    let summary: String
    let children: [any Command]
    var examples: [String] = []

    var help: CommandHelp {
        CommandHelp(
            overview: summary, usage: ["pushctl \(name) <subcommand> [options]"],
            subcommands: children.map { (String($0.name.split(separator: " ").last ?? ""), $0.summary) },
            examples: examples + ["pushctl \(name) <subcommand> --help"])
    }
}

/// One entry of the top-level command list.
enum CommandEntry {
    case leaf(any Command)
    case group(CommandGroup)

    /// A group entry: `name`, its one-line `summary` and its subcommands.
    static func group(_ name: String, _ summary: String, _ children: [any Command]) -> CommandEntry {
        .group(CommandGroup(name: name, summary: summary, children: children))
    }

    var name: String {
        switch self {
        case .leaf(let command): command.name
        case .group(let group): group.name
        }
    }

    var summary: String {
        switch self {
        case .leaf(let command): command.summary
        case .group(let group): group.summary
        }
    }
}
