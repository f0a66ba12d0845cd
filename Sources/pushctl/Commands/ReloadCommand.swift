import ArgumentParsing
import JSON

/// `pushctl reload`: POST /v1/admin/reload (what SIGHUP does).
struct ReloadCommand: ServiceCommand {
    let name = "reload"
    let summary = "Reload push-server's credentials, API keys and TLS files."
    let help = CommandHelp(
        overview: """
            Make push-server read its APNs credentials (.p12/.p8), API keys and TLS files again, as SIGHUP does \
            (POST /v1/admin/reload, needs a key with the admin scope). Accepted work is not dropped: new APNs \
            connections use the new credentials while the old ones finish. A file that cannot be used keeps \
            the old credential and exits 1 with the reason.
            """,
        usage: ["pushctl reload [--output table|json|yaml]"],
        options: ServiceClient.specs,
        examples: ["pushctl reload", "PUSHCTL_API_KEY=$OPS_KEY pushctl reload --output json"])

    func request(_ input: CommandInput) -> ServiceClient.Request { ServiceClient.Request(method: "POST", path: "/v1/admin/reload") }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
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
}
