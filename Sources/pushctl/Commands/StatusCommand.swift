import APNSCore
import ArgumentParsing
import Foundation
import JSON

/// `pushctl status`: GET /healthz plus a summary of GET /metrics.
struct StatusCommand: Command {
    let name = "status"
    let summary = "Show push-server's health and a metrics summary."
    let help = CommandHelp(
        overview: "Show push-server's health (GET /healthz) and a summary of its metrics (GET /metrics).",
        usage: ["pushctl status [--url <url>] [--output table|json|yaml]"],
        options: ServiceClient.specs,
        examples: ["pushctl status", "PUSHCTL_URL=http://10.0.0.5:8080 pushctl status --output json"])

    func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let output = try CommandInput(arguments, for: self).format
        let client = try ServiceClient(arguments)
        let health = try await client.send("GET", "/healthz", check: false)
        let metrics = try? await client.send("GET", "/metrics", check: false)
        let summary = metrics.map { Self.parseMetrics(String(decoding: $0.body, as: UTF8.self)) } ?? [:]
        let healthy = (200..<300).contains(health.status)
        if output != .table {
            let value: JSONValue = [
                "healthy": .bool(healthy), "url": .string(client.baseURL),
                "health": health.json ?? .string(String(decoding: health.body, as: UTF8.self)),
                "metrics": .object(summary.mapValues { .double($0) }),
            ]
            output.print(value) {}
        } else {
            Console.out("push-server \(client.baseURL): \(healthy ? "healthy" : "unhealthy (\(health.status))")")
            if let object = health.json?.objectValue {
                let checks = object.keys.sorted().filter { $0 != "apps" }
                Console.table(["CHECK", "VALUE"], checks.map { [$0, ServiceOutput.text(object[$0] ?? .null)] })
            }
            if let apps = health.json?["apps"]?.arrayValue, !apps.isEmpty {
                Console.out("")
                Console.table(
                    ["APP", "TOPICS", "CREDENTIAL", "PRODUCTION", "DEVELOPMENT", "EXPIRES", "RELOAD ERROR"], apps.map(ServiceCall.appRow))
            }
            if !summary.isEmpty {
                Console.out("")
                Console.table(["METRIC", "VALUE"], summary.keys.sorted().map { [$0, Self.format(summary[$0] ?? 0)] })
            }
        }
        return healthy ? ExitCode.ok : ExitCode.unavailable
    }

    /// Sums each Prometheus metric over its labels (`name{labels} value` lines); skips histograms' buckets.
    static func parseMetrics(_ text: String) -> [String: Double] {
        var sums: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count >= 2, let value = Double(parts[1]) else { continue }
            let name = String(parts[0].split(separator: "{", maxSplits: 1).first ?? "")
            if name.hasSuffix("_bucket") { continue }
            sums[name, default: 0] += value
        }
        return sums
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.3f", value)
    }
}
