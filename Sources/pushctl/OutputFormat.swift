import APNSCore
import ArgumentParsing
import JSON

/// How a command prints its answer: `--output table|json|yaml`, with `--json` kept as `--output json`.
enum OutputFormat: String, CaseIterable, Sendable {
    /// Tables and lines for people (the default).
    case table
    /// The service's JSON on one line, for scripts.
    case json
    /// The same data as YAML.
    case yaml

    /// The two options every command with output takes.
    static let specs: [OptionSpec] = [
        .choice("output", allCases.map(\.rawValue), "table (default), json or yaml."),
        .flag("json", "Same as --output json."),
    ]

    /// The format `arguments` asks for; `--json` with another `--output` is a usage error.
    init(_ arguments: ParsedArguments, command: String) throws(CLIError) {
        let named = arguments.value("output")
        if arguments.has("json"), let named, named != Self.json.rawValue {
            throw CLIError.usage("--json means --output json; it cannot be combined with --output \(named)", command: command)
        }
        guard let named else {
            self = arguments.has("json") ? .json : .table
            return
        }
        guard let format = OutputFormat(rawValue: named) else {
            throw CLIError.usage("--output must be table, json or yaml, got '\(named)'", command: command)
        }
        self = format
    }

    /// Prints `value` as JSON or YAML; for `.table`, runs `table` instead.
    func print(_ value: JSONValue, table: () -> Void) {
        switch self {
        case .table: table()
        case .json: Console.out(String(decoding: value.serialized(), as: UTF8.self))
        case .yaml: Console.outRaw(YAMLText.document(value))
        }
    }
}
