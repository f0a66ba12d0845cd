import Foundation

/// A bad or missing command-line argument.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// `--name value` (or `-n value`) options and `--flag` switches after the subcommand.
struct Arguments {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// Parses `tokens`; a `--name` followed by another `--name` or nothing is a flag.
    init(_ tokens: ArraySlice<String>) throws(UsageError) {
        var index = tokens.startIndex
        while index < tokens.endIndex {
            let token = tokens[index]
            guard token.hasPrefix("-") else { throw UsageError(description: "unexpected argument \(token)") }
            let name = String(token.drop(while: { $0 == "-" }))
            let next = tokens.index(after: index)
            if next < tokens.endIndex, !tokens[next].hasPrefix("-") || Double(tokens[next]) != nil {
                values[name] = tokens[next]
                index = tokens.index(after: next)
            } else {
                flags.insert(name)
                index = next
            }
        }
    }

    /// Whether `--name` was given as a switch.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The text of `--name`, or nil.
    func string(_ name: String) -> String? { values[name] }

    /// The text of `--name`, which must be present.
    func required(_ name: String) throws(UsageError) -> String {
        guard let value = values[name] else { throw UsageError(description: "missing --\(name)") }
        return value
    }

    /// `--name` as an integer, or `fallback`.
    func int(_ name: String, _ fallback: Int) throws(UsageError) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")) else {
            throw UsageError(description: "--\(name) needs an integer, got \(text)")
        }
        return value
    }

    /// `--name` as a number, or `fallback`.
    func double(_ name: String, _ fallback: Double) throws(UsageError) -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text) else { throw UsageError(description: "--\(name) needs a number, got \(text)") }
        return value
    }
}
