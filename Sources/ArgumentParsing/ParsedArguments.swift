/// A command line read against a list of ``OptionSpec``s: values, switches and positionals.
///
/// ```swift
/// let parsed = try ParsedArguments(["--port", "0", "--embedded"], options: [
///     .value("port", "n", "listen port"), .flag("embedded", "run with the mock")])
/// parsed.value("port")   // "0"
/// parsed.has("embedded") // true
/// ```
///
/// Errors name the option: an unknown one, a missing or unexpected value, a second use of one that is not
/// repeatable, a value outside an option's choices, and any secret (see ``OptionSpec/SecretRule``).
public struct ParsedArguments: Sendable {
    /// The values given per option name, in order.
    public private(set) var values: [String: [String]] = [:]
    /// The switches given.
    public private(set) var flags: Set<String> = []
    /// The arguments that are not options, in order.
    public private(set) var positionals: [String] = []
    /// `--help` or `-h` was given.
    public private(set) var wantsHelp = false

    /// Parses `arguments` (without the program or command name) against `options`.
    public init(_ arguments: [String], options: [OptionSpec]) throws(ArgumentError) {
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let byShort = Dictionary(options.compactMap { spec in spec.short.map { ($0, spec) } }, uniquingKeysWith: { first, _ in first })
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
                continue
            }
            var written = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                inline = String(argument[argument.index(after: equals)...])
                written = String(argument[..<equals])
            }
            let found: OptionSpec?
            if written.hasPrefix("--") {
                found = byName[String(written.dropFirst(2))]
            } else {
                found = written.count == 2 ? byShort[written.last!] : nil
            }
            guard let spec = found else { throw ArgumentError("unknown option '\(written)'") }
            let option = "--\(spec.name)"
            if case .refused(let alternative) = spec.secret { throw .secret(option, alternative: alternative) }
            guard let placeholder = spec.value else {
                if inline != nil { throw ArgumentError("option '\(option)' takes no value") }
                if flags.contains(spec.name), !spec.repeatable { throw ArgumentError("option '\(option)' given more than once") }
                flags.insert(spec.name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < arguments.count else { throw ArgumentError("option '\(option)' needs a value <\(placeholder)>") }
                value = arguments[index]
                index += 1
            }
            try Self.check(value, of: spec)
            if !spec.repeatable, values[spec.name] != nil { throw ArgumentError("option '\(option)' given more than once") }
            values[spec.name, default: []].append(value)
        }
    }

    /// Refuses a value outside the option's choices, or a URL with a password where that is not allowed.
    private static func check(_ value: String, of spec: OptionSpec) throws(ArgumentError) {
        if !spec.choices.isEmpty, !spec.choices.contains(value) {
            throw ArgumentError("option '--\(spec.name)' must be one of \(spec.choices.joined(separator: ", ")), got '\(value)'")
        }
        if case .urlWithoutPassword(let alternative) = spec.secret, SecretInput.urlHoldsPassword(value) {
            throw ArgumentError(
                "--\(spec.name) is refused: its URL holds a password, and secrets are never taken as option values",
                hint: "use \(alternative)")
        }
    }

    /// The value of `name` (the last one, for a repeatable option), if given.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option, in order.
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether switch `name` was given.
    public func has(_ name: String) -> Bool { flags.contains(name) }

    /// The value of `name`, which must be present.
    public func required(_ name: String) throws(ArgumentError) -> String {
        guard let value = value(name) else { throw ArgumentError("missing required option '--\(name)'") }
        return value
    }

    /// The value of `name` as a whole number (`_` separators allowed), if given.
    public func int(_ name: String) throws(ArgumentError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(String(text.filter { $0 != "_" })) else {
            throw ArgumentError("'--\(name)' needs a whole number, got '\(text)'")
        }
        return number
    }

    /// The value of `name` as a decimal number, if given.
    public func double(_ name: String) throws(ArgumentError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text) else { throw ArgumentError("'--\(name)' needs a number, got '\(text)'") }
        return number
    }

    /// Exactly `names.count` positionals (none when `names` is empty), named for the error message.
    public func positionals(_ names: [String]) throws(ArgumentError) -> [String] {
        if positionals.count < names.count { throw ArgumentError("missing argument <\(names[positionals.count])>") }
        if positionals.count > names.count { throw ArgumentError("unexpected argument '\(positionals[names.count])'") }
        return positionals
    }
}
