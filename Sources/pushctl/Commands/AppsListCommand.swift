import ArgumentParsing
import JSON

/// `pushctl apps ls`: GET /v1/apps.
enum AppsListCommand: Command {
    static let name = "apps ls"
    static let summary = "List the apps push-server pushes for."
    static var help: CommandHelp {
        CommandHelp(
            overview:
                "List the apps push-server pushes for (GET /v1/apps): name, topics (those read from a certificate included), credential, health per environment and connections.",
            usage: ["pushctl apps ls [--output table|json|yaml]"], options: ServiceClient.specs,
            examples: ["pushctl apps ls", "pushctl apps ls --output json | jq '.apps[].topics'"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        _ = try arguments.positionals([], command: name)
        let response = try await ServiceClient(arguments).send("GET", "/v1/apps")
        guard format == .table, let apps = response.json?["apps"]?.arrayValue else {
            ServiceOutput.print(response, format: format, listKey: "apps", emptyText: "no apps")
            return ExitCode.ok
        }
        Console.table(["NAME", "TOPICS", "CREDENTIAL", "PRODUCTION", "DEVELOPMENT", "EXPIRES", "RELOAD ERROR"], apps.map(row))
        return ExitCode.ok
    }

    /// One app as a table row.
    static func row(_ app: JSONValue) -> [String] {
        let topics = app["any_topic"]?.boolValue == true ? ["(any)"] : (app["topics"]?.arrayValue ?? []).compactMap(\.stringValue)
        var credential = app["credential"]?.stringValue ?? "-"
        if let key = app["key_id"]?.stringValue, let team = app["team_id"]?.stringValue { credential += " \(key)/\(team)" }
        return [
            app["name"]?.stringValue ?? "-", topics.joined(separator: ","), credential,
            app["production"]?.stringValue ?? "-", app["development"]?.stringValue ?? "-",
            app["certificate_not_after"]?.stringValue ?? "-", app["reload_error"]?.stringValue ?? "-",
        ]
    }
}
