/// `pushctl pushes`: sent pushes.
extension ServiceCall {
    /// `pushctl pushes get`: GET /v1/pushes/{id}.
    static let pushesGet = ServiceCall(
        "pushes get", summary: "Show a push's notifications and their outcomes.",
        overview: "Show every notification of a push with its state, reason and apns-id (GET /v1/pushes/{id}).",
        usage: ["pushctl pushes get <push-id> [--output table|json|yaml]"], argument: ("<push-id>", "The push_id 'send' printed."),
        examples: ["pushctl pushes get 01936f4e-...", "pushctl pushes get 01936f4e-... --output json | jq .counts"], table: .push
    ) { input in .get("/v1/pushes/\(input.pathSegment)") }
}
