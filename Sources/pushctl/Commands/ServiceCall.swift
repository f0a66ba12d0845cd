import ArgumentParsing
import JSON

/// A command that sends push-server one request and prints its answer. Each such command is a value of this
/// type (one file per command group: `ServiceCall+Devices.swift`, `ServiceCall+Webhooks.swift`, ...) that
/// says what its help shows, which request its arguments make and how a table shows the answer. Reading the
/// output format and the positionals its help lists, the connection options, building the client, sending,
/// mapping failures to exit codes and printing JSON or YAML are written once here.
struct ServiceCall: Command {
    /// How `--output table` shows the answer; JSON and YAML print it as the service sent it.
    enum Table: Sendable {
        /// An object as FIELD/VALUE rows, a list as a table.
        case fields
        /// The list under `key` as a table, or `empty` when there is none.
        case list(_ key: String, empty: String)
        /// A line (or lines) saying what was done.
        case line(@Sendable (ServiceClient.Response, CommandInput) -> String)
        /// A push's notifications and their outcomes; the exit code is 2 when one was not delivered.
        case push
        /// A drop's state, with its mate requests.
        case drop
        /// Printed by the command itself.
        case custom(@Sendable (ServiceClient.Response, CommandInput) -> Void)
    }

    let name: String
    let summary: String
    let help: CommandHelp
    /// The request the parsed arguments ask for.
    let request: @Sendable (CommandInput) throws(CLIError) -> ServiceClient.Request
    let table: Table

    /// A command `name` whose help shows `overview`, `usage`, the positional `argument` (if it takes one),
    /// its own `options` followed by the connection and output options, and `examples`.
    init(
        _ name: String, summary: String, overview: String, usage: [String], argument: (String, String)? = nil,
        options: [OptionSpec] = [], examples: [String], table: Table = .fields,
        request: @escaping @Sendable (CommandInput) throws(CLIError) -> ServiceClient.Request
    ) {
        self.name = name
        self.summary = summary
        help = CommandHelp(
            overview: overview, usage: usage, arguments: argument.map { [$0] } ?? [], options: options + ServiceClient.specs,
            examples: examples)
        self.table = table
        self.request = request
    }

    func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let input = try CommandInput(arguments, for: self)
        let request = try request(input)
        let response = try await ServiceClient(arguments).send(request)
        switch table {
        case .fields:
            ServiceOutput.print(response, format: input.format)
        case .list(let key, let empty):
            ServiceOutput.print(response, format: input.format, listKey: key, emptyText: empty)
        case .line(let line):
            ServiceOutput.print(response, format: input.format) { Console.out(line(response, input)) }
        case .push:
            PushOutput.print(response, format: input.format, waited: true)
            return PushOutput.exitCode(response)
        case .drop:
            DropOutput.print(response, format: input.format)
        case .custom(let print):
            print(response, input)
        }
        return ExitCode.ok
    }
}

extension ServiceClient.Request {
    static func get(_ path: String) -> Self { Self(method: "GET", path: path) }

    static func delete(_ path: String) -> Self { Self(method: "DELETE", path: path) }

    static func post(_ path: String, _ body: JSONValue? = nil) -> Self { Self(method: "POST", path: path, body: body) }

    static func put(_ path: String, _ body: JSONValue) -> Self { Self(method: "PUT", path: path, body: body) }
}

extension OptionSpec {
    /// `--user`, the user a command is about, for the commands whose path names one.
    static let user = OptionSpec.value("user", "id", "The user (required).")

    /// `--topic`, the app a command is about when the service serves several.
    static let topic = OptionSpec.value("topic", "bundle-id", "The app's bundle id (default: the service's).")

    /// `--environment production|development`, the APNs environment, with what it means for the command.
    static func environment(_ help: String) -> OptionSpec {
        .choice("environment", ["production", "development"], help)
    }
}

extension ServiceCall.Table {
    /// A line counting the lists in the answer: each `(label, key)` as "label N", N the length of the list
    /// under `key`, comma-separated.
    static func counts(_ parts: [(label: String, key: String)]) -> Self {
        .line { response, _ in
            parts.map { "\($0.label) \(response.json?[$0.key]?.arrayValue?.count ?? 0)" }.joined(separator: ", ")
        }
    }
}
