import JSON

/// `pushctl apps` and `pushctl reload`: the apps push-server pushes for and their credentials.
extension ServiceCall {
    /// `pushctl apps ls`: GET /v1/apps.
    static let appsList = ServiceCall(
        "apps ls", summary: "List the apps push-server pushes for.",
        overview:
            "List the apps push-server pushes for (GET /v1/apps): name, topics (those read from a certificate included), credential, health per environment and connections.",
        usage: ["pushctl apps ls [--output table|json|yaml]"],
        examples: ["pushctl apps ls", "pushctl apps ls --output json | jq '.apps[].topics'"],
        table: .custom { response, input in
            guard input.format == .table, let apps = response.json?["apps"]?.arrayValue else {
                ServiceOutput.print(response, format: input.format, listKey: "apps", emptyText: "no apps")
                return
            }
            Console.table(["NAME", "TOPICS", "CREDENTIAL", "PRODUCTION", "DEVELOPMENT", "EXPIRES", "RELOAD ERROR"], apps.map(appRow))
        }
    ) { _ in .get("/v1/apps") }

    /// One app as a table row.
    static func appRow(_ app: JSONValue) -> [String] {
        let topics = app["any_topic"]?.boolValue == true ? ["(any)"] : (app["topics"]?.arrayValue ?? []).compactMap(\.stringValue)
        var credential = app["credential"]?.stringValue ?? "-"
        if let key = app["key_id"]?.stringValue, let team = app["team_id"]?.stringValue { credential += " \(key)/\(team)" }
        return [
            app["name"]?.stringValue ?? "-", topics.joined(separator: ","), credential,
            app["production"]?.stringValue ?? "-", app["development"]?.stringValue ?? "-",
            app["certificate_not_after"]?.stringValue ?? "-", app["reload_error"]?.stringValue ?? "-",
        ]
    }

    /// `pushctl reload`: POST /v1/admin/reload (what SIGHUP does).
    static let reload = ServiceCall(
        "reload", summary: "Reload push-server's credentials, API keys and TLS files.",
        overview: """
            Make push-server read its APNs credentials (.p12/.p8), API keys and TLS files again, as SIGHUP does \
            (POST /v1/admin/reload, needs a key with the admin scope). Accepted work is not dropped: new APNs \
            connections use the new credentials while the old ones finish. A file that cannot be used keeps \
            the old credential and exits 1 with the reason.
            """,
        usage: ["pushctl reload [--output table|json|yaml]"],
        examples: ["pushctl reload", "PUSHCTL_API_KEY=$OPS_KEY pushctl reload --output json"],
        table: .custom { response, input in
            guard input.format == .table, let value = response.json else {
                ServiceOutput.print(response, format: input.format)
                return
            }
            let parts = (value["reloaded"]?.arrayValue ?? []).compactMap(\.stringValue)
            Console.out("reloaded: \(parts.isEmpty ? "nothing" : parts.joined(separator: ", "))")
            let apps = value["apps"]?.arrayValue ?? []
            if !apps.isEmpty {
                Console.table(
                    ["APP", "OUTCOME", "ERROR"],
                    apps.map { [$0["name"]?.stringValue ?? "-", $0["outcome"]?.stringValue ?? "-", $0["error"]?.stringValue ?? "-"] })
            }
        }
    ) { _ in .post("/v1/admin/reload") }
}
