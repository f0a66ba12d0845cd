import APNSCore
import ArgumentParsing

/// A command's parsed arguments as its action reads them: the output format, the positional argument and the
/// options, with errors that name the command and point at its help.
struct CommandInput {
    let arguments: ParsedArguments
    /// The command's name, e.g. `devices add`.
    let command: String
    let format: OutputFormat
    /// The first positional argument; empty when the command takes none.
    let positional: String

    /// Reads `--output`/`--json`, then exactly the positionals `command`'s help lists (`<id>` is named `id`).
    init(_ arguments: ParsedArguments, for command: some Command) throws(CLIError) {
        self.arguments = arguments
        self.command = command.name
        format = try OutputFormat(arguments, command: command.name)
        let names = command.help.arguments.map { $0.0.filter { $0 != "<" && $0 != ">" } }
        positional = try arguments.positionals(names, command: command.name).first ?? ""
    }

    /// The positional argument percent-encoded as one path segment.
    var pathSegment: String { ServiceClient.segment(positional) }

    func value(_ option: String) -> String? { arguments.value(option) }

    func has(_ flag: String) -> Bool { arguments.has(flag) }

    func required(_ option: String) throws(CLIError) -> String { try arguments.required(option, command: command) }

    /// The value of `option`, which must be present, percent-encoded as one path segment.
    func requiredSegment(_ option: String) throws(CLIError) -> String { ServiceClient.segment(try required(option)) }

    func int(_ option: String) throws(CLIError) -> Int? { try arguments.int(option, command: command) }

    func double(_ option: String) throws(CLIError) -> Double? { try arguments.double(option, command: command) }

    /// A usage error (exit 64) pointing at the command's help.
    func usage(_ message: String) -> CLIError { CLIError.usage(message, command: command) }

    /// `text` as a device token; `label` names it in the error (`token`, `--token`).
    func deviceToken(_ text: String, label: String) throws(CLIError) -> DeviceToken {
        do { return try DeviceToken(text) } catch { throw usage("bad \(label): \(error)") }
    }

    /// `--environment`, if given: production or development.
    func environment() throws(CLIError) -> String? {
        guard let environment = value("environment") else { return nil }
        guard environment == "production" || environment == "development" else {
            throw usage("--environment must be production or development")
        }
        return environment
    }
}
