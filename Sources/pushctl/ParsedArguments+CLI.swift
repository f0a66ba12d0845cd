import ArgumentParsing

/// pushctl's use of the shared parser: its errors become usage errors (exit 64) whose hint points at the
/// command's help, or names where a secret goes instead.
extension ParsedArguments {
    /// Options no command takes because they would carry a secret; each error names what to use instead.
    static let refusedSecrets: [OptionSpec] = [
        .refused("password", instead: "--password-file FILE or the PUSHCTL_P12_PASSWORD environment variable"),
        .refused("pass", instead: "--password-file FILE or the PUSHCTL_P12_PASSWORD environment variable"),
        .refused("api-key", instead: "--api-key-file FILE or the PUSHCTL_API_KEY environment variable"),
    ]

    /// Parses `arguments` against `options` (and the refused secret options) for `command`.
    static func parse(_ arguments: [String], options: [OptionSpec], command: String) throws(CLIError) -> ParsedArguments {
        do {
            return try ParsedArguments(arguments, options: options + refusedSecrets)
        } catch {
            throw CLIError(error, command: command)
        }
    }

    /// A value that must be present.
    func required(_ name: String, command: String) throws(CLIError) -> String {
        do { return try required(name) } catch { throw CLIError(error, command: command) }
    }

    /// An integer value, if given.
    func int(_ name: String, command: String) throws(CLIError) -> Int? {
        do { return try int(name) } catch { throw CLIError(error, command: command) }
    }

    /// A decimal value, if given.
    func double(_ name: String, command: String) throws(CLIError) -> Double? {
        do { return try double(name) } catch { throw CLIError(error, command: command) }
    }

    /// Exactly `count` positionals, named for the error message.
    func positionals(_ names: [String], command: String) throws(CLIError) -> [String] {
        do { return try positionals(names) } catch { throw CLIError(error, command: command) }
    }
}

extension CLIError {
    /// A usage error from the parser: its own hint (for secrets), else the command's help.
    init(_ error: ArgumentError, command: String) {
        self.init(ExitCode.usage, error.message, hint: error.hint ?? "run 'pushctl \(command) --help'")
    }
}
