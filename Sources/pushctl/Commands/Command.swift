import ArgumentParsing

/// A leaf command: its help (which also lists the options the parser accepts) and its action.
protocol Command {
    /// The path after `pushctl`, e.g. `devices add`.
    static var name: String { get }
    /// One line for the parent's SUBCOMMANDS list.
    static var summary: String { get }
    /// The full help.
    static var help: CommandHelp { get }
    /// Runs with parsed arguments and returns the exit code.
    static func run(_ arguments: ParsedArguments) async throws -> Int32
}

/// A command with subcommands, e.g. `devices`.
struct CommandGroup {
    let name: String
    let summary: String
    let children: [any Command.Type]
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
    case leaf(any Command.Type)
    case group(CommandGroup)

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
