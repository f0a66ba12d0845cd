import APNSCore
import APNSMock
import Foundation
import JSON
import PushChaos
import PushSync
import PushTLS
import PushTLSTesting
import TestSupport
import Testing

/// The Grafana dashboard and the alert rules against real data: Debian's Prometheus scrapes a `push-server`
/// child process (sending to an in-process mock APNs) under a little load, and every panel query of
/// `deploy/grafana/push-service.json` and every metric the alerts use must come back with data.
@Suite("deploy/grafana and deploy/prometheus against a scraped push-server")
struct PrometheusDashboardTests {
    static let topic = "com.example.sniffmeet"

    /// Every query of every panel, with Grafana's `$__rate_interval` set to what one-second scrapes allow.
    static func panelQueries() throws -> [(panel: String, expression: String)] {
        let data = try Data(contentsOf: DeployDirectory.url.appendingPathComponent("grafana/push-service.json"))
        let dashboard = try JSONValue.parse(Array(data))
        let panels = try #require(dashboard["panels"]?.arrayValue)
        return panels.flatMap { panel in
            (panel["targets"]?.arrayValue ?? []).compactMap { target in
                target["expr"]?.stringValue.map {
                    (panel["title"]?.stringValue ?? "?", $0.replacingOccurrences(of: "$__rate_interval", with: "15s"))
                }
            }
        }
    }

    /// The metric names the alert rules read.
    static func alertMetrics() throws -> Set<String> {
        let rules = try String(contentsOf: DeployDirectory.url.appendingPathComponent("prometheus/alerts.yml"), encoding: .utf8)
        let expressions = rules.split(separator: "\n").filter { !$0.contains("summary:") && !$0.contains("description:") }.joined(separator: "\n")
        let pattern = try Regex(#"\b(?:push|http)_[a-z_]+\b"#)
        return Set(expressions.matches(of: pattern).map { String(expressions[$0.range]) })
    }

    /// The names of the alert rules in `deploy/prometheus/alerts.yml`, as written there.
    static func alertNames() throws -> [String] {
        let rules = try String(contentsOf: DeployDirectory.url.appendingPathComponent("prometheus/alerts.yml"), encoding: .utf8)
        return rules.split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("- alert:") ? String(trimmed.dropFirst("- alert:".count)).trimmingCharacters(in: .whitespaces) : nil
        }
    }

    @Test("the dashboard's panels have unique ids, a position and at least one query each")
    func dashboardShape() throws {
        let data = try Data(contentsOf: DeployDirectory.url.appendingPathComponent("grafana/push-service.json"))
        let panels = try #require(try JSONValue.parse(Array(data))["panels"]?.arrayValue)
        #expect(Set(panels.compactMap { $0["id"]?.intValue }).count == panels.count)
        for panel in panels {
            let title = panel["title"]?.stringValue ?? "?"
            let width = panel["gridPos"]?["w"]?.intValue
            let targets = panel["targets"]?.arrayValue ?? []
            #expect(width != nil, "\(title) has no position")
            #expect(!targets.isEmpty, "\(title) has no query")
        }
        #expect(try Self.alertMetrics().contains("push_apns_certificate_not_after_timestamp_seconds"))
    }

    @Test(
        "every panel query and every alert metric returns data from a scraped push-server",
        .timeLimit(.minutes(3)))
    func panelsReturnData() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-prom-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try TestCredentialFiles.write(to: directory + "/creds", bundleID: Self.topic, password: "pw")
        let mock = try MockAPNSServer(configuration: try MockAPNSServer.Configuration(credentialFiles: files))
        defer { mock.stop() }
        // Two API keys: one for the load, one with a tiny rate limit so the refusal panel has a series; a
        // webhook endpoint nobody listens on, so the webhook alert's requests have a series.
        let config = """
            {"api_keys": [{"name": "load", "key": "load-key"},
                          {"name": "limited", "key": "limited-key", "rate_limit": {"requests_per_s": 1, "request_burst": 1}}],
             "webhooks": [{"id": "nobody", "url": "http://127.0.0.1:1/", "events": ["*"], "secret": "unused-secret-0123"}],
             "webhook_delivery": {"poll_s": 0.1, "retry_initial_s": 0.2, "retry_max_s": 1}}
            """
        try config.write(toFile: directory + "/push-server.json", atomically: true, encoding: .utf8)
        let server = try await PushServerProcess.start(
            binary: BuiltServer.path,
            arguments: [
                "--config", directory + "/push-server.json", "--data-dir", directory + "/data", "--port", "0",
                "--topic", Self.topic, "--apns-p12", files.clientP12Path, "--apns-password-file", files.clientP12PasswordPath, "--apns-host",
                "127.0.0.1",
                "--apns-port", "\(mock.port)", "--apns-ca", files.caCertificatePath, "--log-level", "error",
            ])
        defer { server.stop(SIGTERM) }
        let client = TestHTTPClient(port: server.port, apiKey: "load-key")
        let tokens: [JSONValue] = try await Self.seed(client, mock: mock).map { .string($0) }

        // Stopped by a flag, never cancelled: cancelling the task would cancel its URLSession request, and
        // FoundationNetworking can crash the process when a cancel races the request's completion
        // ("Trying to access a behaviour for a task that in not in the registry").
        let stopLoad = PThreadLock(false)
        // A few sends a second keep every rate above zero.
        _ = Task {
            try? await repeatEvery(.milliseconds(100), until: { stopLoad.withLock { $0 } }) {
                _ = try? await client.send(
                    "POST", "/v1/pushes?wait=true",
                    json: ["tokens": .array(tokens), "alert": "walk?", "environment": "development"])
            }
        }
        defer { stopLoad.withLock { $0 = true } }

        let prometheus = try await PrometheusServer.start(
            configuration: """
                global: {scrape_interval: 1s, evaluation_interval: 1s}
                rule_files: ["\(DeployDirectory.path("prometheus/alerts.yml"))"]
                scrape_configs:
                  - job_name: push-server
                    static_configs: [{targets: ["127.0.0.1:\(server.port)"]}]
                """, directory: directory)
        defer { prometheus.stop() }

        // Prometheus announces nothing when it scrapes, so there is no event to wait on: ask until each query
        // has data (rates need two scrapes), for at most 60 s in all.
        let deadline = ContinuousClock.now + .seconds(60)
        let queries = try Self.panelQueries() + Self.alertMetrics().sorted().map { ("alert metric", "count(\($0))") }
        for (panel, expression) in queries {
            let left = max(deadline - ContinuousClock.now, .milliseconds(1))
            do {
                _ = try await poll("data for \(expression)", within: left, every: .milliseconds(250)) {
                    try await prometheus.query(expression).isEmpty ? nil : true
                }
            } catch let error as DeadlineExceeded {
                Issue.record("\(panel): no data for \(expression) (\(error))")
            }
        }

        // The numbers behind the panels are the ones the load produced.
        let invalidated = try await prometheus.query("push_tokens_invalidated_total")
        for reason in ["Unregistered", "DeviceTokenNotForTopic"] {
            let value = invalidated.first { $0["metric"]?["reason"]?.stringValue == reason }?["value"]?[1]?.stringValue
            #expect(value.flatMap(Double.init) == 1, "\(reason): \(invalidated)")
        }
        let notAfter = try await prometheus.query("push_apns_certificate_not_after_timestamp_seconds")
        let certificate = try TLSIdentity(p12Path: files.clientP12Path, password: "pw").certificate.notAfter
        #expect(notAfter.count == 2)
        #expect(notAfter.allSatisfy { $0["value"]?[1]?.stringValue == "\(Int64(certificate.timeIntervalSince1970.rounded()))" })
        let rules = try await prometheus.get("/api/v1/rules")
        let loaded = rules["data"]?["groups"]?[0]?["rules"]?.arrayValue ?? []
        let written = try Self.alertNames()
        #expect(loaded.count == written.count)
        #expect(Set(loaded.compactMap { $0["name"]?.stringValue }) == Set(written))
        #expect(loaded.allSatisfy { $0["health"]?.stringValue != "err" }, "\(loaded.map { $0["lastError"] ?? "" })")
    }

    /// A user with three good devices, one APNs calls Unregistered and one APNs knows for another topic;
    /// one push to the user (two rejections, two invalidations); a wrong key; a rate-limited key. Returns
    /// the good tokens, which the load sends to.
    static func seed(_ client: TestHTTPClient, mock: MockAPNSServer) async throws -> [String] {
        let created = try await client.send("PUT", "/v1/users/rex", json: ["name": "Mina", "dog_name": "Rex"]).status
        #expect((200..<300).contains(created))
        let good = (0..<3).map { _ in ServiceHarness.randomToken() }
        // Once a topic has registered tokens, the mock answers DeviceTokenNotForTopic for any other token.
        for token in good { mock.registerToken(token, topic: topic) }
        let gone = ServiceHarness.randomToken()
        let otherTopic = ServiceHarness.randomToken()
        for token in good + [gone, otherTopic] {
            let response = try await client.send(
                "POST", "/v1/devices",
                json: ["token": .string(token), "user_id": "rex", "environment": "development"])
            #expect((200..<300).contains(response.status))
        }
        mock.unregisterToken(gone, at: Date().addingTimeInterval(60))
        mock.registerToken(otherTopic, topic: "com.example.other")
        let push = try await client.send("POST", "/v1/pushes?wait=true", json: ["user_id": "rex", "alert": "Walk time"])
        #expect(push.status == 200, "\(String(decoding: push.body, as: UTF8.self))")
        #expect(try await client.with(apiKey: "wrong-key").send("GET", "/v1/users/rex").status == 401)
        let limited = client.with(apiKey: "limited-key")
        let statuses = [try await limited.send("GET", "/v1/users/rex").status, try await limited.send("GET", "/v1/users/rex").status]
        #expect(statuses.contains(429))
        return good
    }
}
