import Foundation

/// One option as shown in help and understood by the parser.
struct OptionSpec: Sendable {
    /// The long name without dashes, e.g. `title`.
    let name: String
    /// The value's placeholder, or nil for a boolean flag.
    let value: String?
    /// One line of help.
    let help: String
    /// Whether the flag may be given more than once.
    var repeatable = false
    /// The values the option takes, when it takes one of a fixed few (offered by shell completion).
    var choices: [String] = []

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, help: help)
    }

    /// An option taking one of `choices`; its placeholder lists them.
    static func choice(_ name: String, _ choices: [String], _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: choices.joined(separator: "|"), help: help, choices: choices)
    }

    static func value(_ name: String, _ placeholder: String, _ help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, help: help, repeatable: repeatable)
    }
}

/// A command's help text: OVERVIEW, USAGE, OPTIONS (or SUBCOMMANDS) and EXAMPLES.
struct CommandHelp: Sendable {
    let overview: String
    let usage: [String]
    var arguments: [(String, String)] = []
    var subcommands: [(String, String)] = []
    var options: [OptionSpec] = []
    var examples: [String] = []

    func render() -> String {
        var lines = ["OVERVIEW: \(overview)", "", "USAGE:"]
        lines += usage.map { "  \($0)" }
        if !arguments.isEmpty {
            lines += ["", "ARGUMENTS:"] + Self.columns(arguments)
        }
        if !subcommands.isEmpty {
            lines += ["", "SUBCOMMANDS:"] + Self.columns(subcommands)
        }
        let optionRows =
            options.map { spec -> (String, String) in
                let left = "--\(spec.name)" + (spec.value.map { " <\($0)>" } ?? "")
                return (left, spec.help + (spec.repeatable ? " (repeatable)" : ""))
            } + [("-h, --help", "Show this help.")]
        lines += ["", "OPTIONS:"] + Self.columns(optionRows)
        if !examples.isEmpty {
            lines += ["", "EXAMPLES:"] + examples.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }

    private static func columns(_ rows: [(String, String)]) -> [String] {
        let width = min(34, (rows.map(\.0.count).max() ?? 0) + 2)
        return rows.map { left, right in
            let padded =
                left.count >= width
                ? left + "\n  " + String(repeating: " ", count: width) : left.padding(toLength: width, withPad: " ", startingAt: 0)
            return "  " + padded + right
        }
    }
}
