import ArgumentParsing
import Foundation

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
            lines += ["", "ARGUMENTS:"] + OptionHelp.columns(arguments)
        }
        if !subcommands.isEmpty {
            lines += ["", "SUBCOMMANDS:"] + OptionHelp.columns(subcommands)
        }
        lines += ["", "OPTIONS:"] + OptionHelp.lines(options)
        if !examples.isEmpty {
            lines += ["", "EXAMPLES:"] + examples.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
