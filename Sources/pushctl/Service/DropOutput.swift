import JSON

/// Readable output for drop answers: `{"state", "drop": {...}, "mate_requests"?: [...]}`.
enum DropOutput {
    static func print(_ response: ServiceClient.Response, format: OutputFormat) {
        guard format == .table, let value = response.json, let state = value["state"]?.stringValue else {
            ServiceOutput.print(response, format: format)
            return
        }
        let drop = value["drop"]
        Console.out(
            "drop \(drop?["id"]?.stringValue ?? "-"): \(state)"
                + " (\(drop?["initiator_id"]?.stringValue ?? "?") -> \(drop?["peer_id"]?.stringValue ?? "?"))")
        if let requests = value["mate_requests"]?.arrayValue {
            ServiceOutput.table(requests, emptyText: "no mate requests")
        }
    }
}
