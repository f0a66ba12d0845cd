import ArgumentParsing
import JSON

/// `pushctl channels apple`: GET /v1/channels/apple.
struct ChannelsAppleCommand: ServiceCommand {
    let name = "channels apple"
    let summary = "List the channels Apple holds beside the stored ones."
    let help = CommandHelp(
        overview:
            "List the broadcast channels Apple holds for an app in one environment, each marked stored or not, and the "
            + "drift both ways: channels only at Apple (they count toward Apple's 10,000) and stored ones Apple no longer has "
            + "(GET /v1/channels/apple).",
        usage: ["pushctl channels apple --environment production|development [--topic <bundle-id>] [--output table|json|yaml]"],
        options: [
            .choice("environment", ["production", "development"], "The environment to ask (required)."),
            .value("topic", "bundle-id", "The app's bundle id (default: the service's)."),
        ] + ServiceClient.specs,
        examples: ["pushctl channels apple --environment development"])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        guard let environment = try input.environment() else { throw input.usage("--environment is required") }
        var path = "/v1/channels/apple?environment=\(environment)"
        if let topic = input.value("topic") { path += "&topic=\(ServiceClient.segment(topic))" }
        return ServiceClient.Request(method: "GET", path: path)
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format) {
            ServiceOutput.table(response.json?["channels"]?.arrayValue ?? [], emptyText: "no channels at Apple")
            let onlyAtApple = response.json?["only_at_apple"]?.arrayValue?.count ?? 0
            let onlyStored = response.json?["only_stored"]?.arrayValue?.count ?? 0
            Console.out("only at Apple: \(onlyAtApple), only stored: \(onlyStored)")
        }
    }
}

/// `pushctl channels reconcile`: POST /v1/channels/reconcile.
struct ChannelsReconcileCommand: ServiceCommand {
    let name = "channels reconcile"
    let summary = "Make the stored channels agree with Apple's."
    let help = CommandHelp(
        overview:
            "Make the stored channels of an app agree with the ones Apple holds (POST /v1/channels/reconcile): channels only "
            + "at Apple are adopted (stored with the storage policy Apple reports) or deleted at Apple; stored channels Apple "
            + "no longer has are forgotten.",
        usage: ["pushctl channels reconcile --environment production|development --strays adopt|delete [--topic <bundle-id>]"],
        options: [
            .choice("environment", ["production", "development"], "The environment to reconcile (required)."),
            .choice("strays", ["adopt", "delete"], "What to do with channels only Apple holds (required)."),
            .value("topic", "bundle-id", "The app's bundle id (default: the service's)."),
        ] + ServiceClient.specs,
        examples: ["pushctl channels reconcile --environment production --strays delete"])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        guard let environment = try input.environment() else { throw input.usage("--environment is required") }
        guard let strays = input.value("strays") else { throw input.usage("--strays adopt|delete is required") }
        var body: [String: JSONValue] = ["environment": .string(environment), "strays": .string(strays)]
        if let topic = input.value("topic") { body["topic"] = .string(topic) }
        return ServiceClient.Request(method: "POST", path: "/v1/channels/reconcile", body: .object(body))
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format) {
            let count = { (key: String) in response.json?[key]?.arrayValue?.count ?? 0 }
            Console.out("adopted \(count("adopted")), deleted at Apple \(count("deleted")), forgotten \(count("forgotten"))")
        }
    }
}
