import ArgumentParsing
import JSON

/// `pushctl apps ls`: GET /v1/apps.
struct AppsListCommand: ServiceCommand {
    let name = "apps ls"
    let summary = "List the apps push-server pushes for."
    let help = CommandHelp(
        overview:
            "List the apps push-server pushes for (GET /v1/apps): name, topics (those read from a certificate included), credential, health per environment and connections.",
        usage: ["pushctl apps ls [--output table|json|yaml]"],
        options: ServiceClient.specs,
        examples: ["pushctl apps ls", "pushctl apps ls --output json | jq '.apps[].topics'"])

    func request(_ input: CommandInput) -> ServiceClient.Request { ServiceClient.Request(method: "GET", path: "/v1/apps") }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        guard input.format == .table, let apps = response.json?["apps"]?.arrayValue else {
            ServiceOutput.print(response, format: input.format, listKey: "apps", emptyText: "no apps")
            return
        }
        Console.table(["NAME", "TOPICS", "CREDENTIAL", "PRODUCTION", "DEVELOPMENT", "EXPIRES", "RELOAD ERROR"], apps.map(Self.row))
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
