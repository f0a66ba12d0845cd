/// Arguments after the command path: `--flag value`, `--flag=value`, boolean flags, repeatable
/// flags, `--` to end options, and positionals.
struct ParsedArguments: Sendable {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    /// `--help` or `-h` was given.
    private(set) var wantsHelp = false

    /// Parses `arguments` against `options`; `command` names the command in error hints.
    init(_ arguments: [String], options: [OptionSpec], command: String) throws(CLIError) {
        let specs = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
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
            guard argument.hasPrefix("--") else {
                throw CLIError.usage("unknown option '\(argument)'", command: command)
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = specs[name] else {
                if name == "password" || name == "pass" {
                    throw CLIError(
                        ExitCode.usage, "passwords are never taken as flag values",
                        hint: "use --password-file FILE or the PUSHCTL_P12_PASSWORD environment variable")
                }
                throw CLIError.usage("unknown option '--\(name)'", command: command)
            }
            guard spec.value != nil else {
                if inline != nil { throw CLIError.usage("option '--\(name)' takes no value", command: command) }
                flags.insert(name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < arguments.count else {
                    throw CLIError.usage("option '--\(name)' needs a value <\(spec.value ?? "value")>", command: command)
                }
                value = arguments[index]
                index += 1
            }
            if !spec.repeatable, values[name] != nil {
                throw CLIError.usage("option '--\(name)' given more than once", command: command)
            }
            values[name, default: []].append(value)
        }
    }

    /// The single value of `name`, if given.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether boolean `name` was given.
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// A value that must be present.
    func required(_ name: String, command: String) throws(CLIError) -> String {
        guard let value = value(name) else { throw CLIError.usage("missing required option '--\(name)'", command: command) }
        return value
    }

    /// An integer value, if given.
    func int(_ name: String, command: String) throws(CLIError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text) else { throw CLIError.usage("'--\(name)' needs a whole number, got '\(text)'", command: command) }
        return number
    }

    /// A decimal value, if given.
    func double(_ name: String, command: String) throws(CLIError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text) else { throw CLIError.usage("'--\(name)' needs a number, got '\(text)'", command: command) }
        return number
    }

    /// Exactly `count` positionals, named for the error message.
    func positionals(_ names: [String], command: String) throws(CLIError) -> [String] {
        if positionals.count < names.count {
            throw CLIError.usage("missing argument <\(names[positionals.count])>", command: command)
        }
        if positionals.count > names.count {
            throw CLIError.usage("unexpected argument '\(positionals[names.count])'", command: command)
        }
        return positionals
    }
}
