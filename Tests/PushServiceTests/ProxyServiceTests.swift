import APNSCore
import APNSMock
import Foundation
import JSON
import PushChaos
import PushIO
import PushService
import PushTLSTesting
import TestSupport
import Testing

@Suite("push-server through an egress proxy", .serialized)
struct ProxyServiceTests {
    /// A push-server process whose APNs clients go through `proxyURL` (set with `apns.proxy` in its
    /// configuration file) to `mock`, logging at debug level into `directory/push-server.log`.
    private func startServer(
        directory: String, files: TestCredentialFiles, mock: MockAPNSServer, proxyURL: String,
        waitTimeout: Double
    ) async throws -> PushServerProcess {
        let config: JSONValue = [
            "wait_timeout_s": .double(waitTimeout), "outbox": ["retry_base_delay_s": 0.05, "retry_max_delay_s": 0.5],
            "apns": [
                "proxy": .string(proxyURL), "host": "127.0.0.1", "port": .int(Int64(mock.port)),
                "ca": .string(files.caCertificatePath), "p12": .string(files.clientP12Path), "password": "pw",
            ],
        ]
        let configPath = directory + "/push-server.json"
        try Data(config.serialized()).write(to: URL(fileURLWithPath: configPath))
        return try await PushServerProcess.start(
            binary: BuiltServer.path,
            arguments: [
                "--config", configPath, "--data-dir", directory + "/data", "--port", "0",
                "--api-key-file", try SecretFiles.write("proxy-key", to: directory + "/api-key"),
                "--topic", ServiceHarness.topic, "--log-level", "debug",
            ],
            logPath: directory + "/push-server.log")
    }

    @Test(
        "the proxy dies mid-load and comes back: every notification is accepted, nothing lost; credentials never logged",
        .timeLimit(.minutes(3)))
    func proxyDiesMidLoad() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-proxy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try TestCredentialFiles.write(to: directory + "/creds", bundleID: ServiceHarness.topic, password: "pw")
        var mockConfiguration = try MockAPNSServer.Configuration(credentialFiles: files)
        mockConfiguration.maxConcurrentStreams = 50
        mockConfiguration.latency = .fixed(.milliseconds(10))
        let mock = try MockAPNSServer(configuration: mockConfiguration)
        defer { mock.stop() }
        let user = "svc-\(UUID().uuidString.prefix(6))"
        let password = "pw-\(UUID().uuidString)"
        let first = try await ProxyProcess.tinyproxy(credentials: (user, password))
        let server = try await startServer(directory: directory, files: files, mock: mock, proxyURL: first.url, waitTimeout: 120)
        let client = TestHTTPClient(port: server.port, apiKey: "proxy-key")
        let tokens = (0..<1_000).map { _ in ServiceHarness.randomToken() }
        let push = Task {
            try await client.send(
                "POST", "/v1/pushes?wait=true",
                json: [
                    "tokens": .array(tokens.map { .string($0) }), "alert": "through the proxy", "environment": "development",
                ])
        }
        await mock.waitForAccepted(count: 200)
        first.kill()
        let second = try await ProxyProcess.tinyproxy(credentials: (user, password), port: first.port)
        defer { second.stop() }
        let response = try await push.value
        #expect(response.status == 200)
        let states = response.json?["notifications"]?.arrayValue?.compactMap { $0["state"]?.stringValue } ?? []
        #expect(states.count == 1_000)
        #expect(states.allSatisfy { $0 == "accepted" }, "\(Dictionary(grouping: states, by: { $0 }).mapValues(\.count))")
        let delivered = Set(mock.records().filter { $0.outcome.isAccepted }.map(\.token))
        #expect(delivered.isSuperset(of: tokens), "every token reached APNs through the proxy")
        #expect(server.stop(SIGTERM) == 0)

        let log = try String(contentsOfFile: directory + "/push-server.log", encoding: .utf8)
        #expect(
            log.contains("apns_proxy=http://***@127.0.0.1:\(first.port)") || log.contains("http://***@127.0.0.1:\(first.port)"),
            "the start-up line names the proxy without its credentials")
        #expect(log.contains("apns.connection_failed"), "the broken tunnel is logged")
        #expect(!log.contains(password), "the proxy password must not be logged")
        #expect(!log.contains(user), "the proxy user must not be logged")
    }

    @Test("a wrong proxy password: a clear apns.proxy_refused line, the push stays queued, no password in the log")
    func wrongPassword() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-proxy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try TestCredentialFiles.write(to: directory + "/creds", bundleID: ServiceHarness.topic, password: "pw")
        let mock = try MockAPNSServer(configuration: try MockAPNSServer.Configuration(credentialFiles: files))
        defer { mock.stop() }
        let proxy = try await ProxyProcess.tinyproxy(credentials: ("svc", "right-\(UUID().uuidString)"))
        defer { proxy.stop() }
        let wrong = try #require(proxy.urlWithWrongPassword)
        let server = try await startServer(directory: directory, files: files, mock: mock, proxyURL: wrong, waitTimeout: 1)
        let client = TestHTTPClient(port: server.port, apiKey: "proxy-key")
        let response = try await client.send(
            "POST", "/v1/pushes?wait=true",
            json: [
                "tokens": .array([.string(ServiceHarness.randomToken())]), "alert": "x", "environment": "development",
            ])
        #expect(response.status == 202 || response.status == 200)
        #expect(response.json?["notifications"]?[0]?["state"]?.stringValue != "accepted")
        #expect(server.stop(SIGTERM) == 0)
        #expect(mock.counters().accepted == 0)
        let log = try String(contentsOfFile: directory + "/push-server.log", encoding: .utf8)
        #expect(log.contains("apns.proxy_refused"), "\(log.suffix(1500))")
        #expect(log.contains("wrong proxy user or password"))
        #expect(!log.contains("not-right-"), "the wrong password must not be logged")
    }
}

@Suite("apns.proxy configuration")
struct ProxyConfigurationTests {
    @Test("file, PUSH_APNS_PROXY and --apns-proxy, later sources winning; 'none' means direct")
    func explicitSources() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(#"{"apns":{"proxy":"http://u:p@file-proxy:3128"}}"#.utf8).write(to: URL(fileURLWithPath: file))
        let fromFile = try PushServiceConfiguration.load(arguments: ["--config", file], environment: [:])
        #expect(
            fromFile.apns.proxy(for: "api.push.apple.com")
                == IOProxy(
                    kind: .httpConnect, host: "file-proxy", port: 3128,
                    username: "u", password: "p"))
        let fromEnv = try PushServiceConfiguration.load(
            arguments: ["--config", file],
            environment: ["PUSH_APNS_PROXY": "socks5://env-proxy:1080"])
        #expect(fromEnv.apns.proxy(for: "api.push.apple.com")?.host == "env-proxy")
        let fromFlag = try PushServiceConfiguration.load(
            arguments: ["--config", file, "--apns-proxy", "socks5://flag:1"],
            environment: ["PUSH_APNS_PROXY": "socks5://env-proxy:1080"])
        #expect(fromFlag.apns.proxy(for: "api.push.apple.com")?.host == "flag")
        let none = try PushServiceConfiguration.load(arguments: ["--apns-proxy", "none"], environment: ["HTTPS_PROXY": "http://corp:8080"])
        #expect(none.apns.proxy(for: "api.push.apple.com") == nil)
        #expect(fromFile.apns.proxySummary == "http://***@file-proxy:3128")
        // nodelay=1 reaches the client's proxy from every source, and the summary says so.
        let atOnce = try PushServiceConfiguration.load(
            arguments: ["--apns-proxy", "socks5://dante:1080?nodelay=1"], environment: [:])
        #expect(atOnce.apns.proxy(for: "api.push.apple.com")?.relaysAtOnce == true)
        #expect(atOnce.apns.proxySummary == "socks5://dante:1080?nodelay=1")
        let atOnceFromEnv = try PushServiceConfiguration.load(
            arguments: [], environment: ["HTTPS_PROXY": "socks5://dante:1080?nodelay=true"])
        #expect(atOnceFromEnv.apns.proxy(for: "api.push.apple.com")?.relaysAtOnce == true)
        #expect(fromFlag.apns.proxy(for: "api.push.apple.com")?.relaysAtOnce == false)
        let unknownParameter = #expect(throws: ConfigurationError.self) {
            try PushServiceConfiguration.load(arguments: ["--apns-proxy", "socks5://dante:1080?fast=1"], environment: [:])
        }
        #expect(
            unknownParameter.map(String.init(describing:)) == "--apns-proxy: bad proxy URL: unknown query parameter (the only one is nodelay)")
    }

    @Test("HTTPS_PROXY / https_proxy when nothing explicit is set; NO_PROXY and loopback hosts go direct")
    func environmentProxy() throws {
        let env = try PushServiceConfiguration.load(arguments: [], environment: ["HTTPS_PROXY": "http://corp:8080"])
        #expect(env.apns.proxy(for: "api.push.apple.com")?.host == "corp")
        #expect(env.apns.proxy(for: "127.0.0.1") == nil)
        #expect(env.apns.proxySummary == "http://corp:8080 (HTTPS_PROXY)")
        let lower = try PushServiceConfiguration.load(arguments: [], environment: ["HTTPS_PROXY": "http://upper:1", "https_proxy": "http://lower:1"])
        #expect(lower.apns.proxy(for: "api.push.apple.com")?.host == "lower")
        for noProxy in ["*", "apple.com", ".push.apple.com", "example.org, api.push.apple.com:443"] {
            let excluded = try PushServiceConfiguration.load(arguments: [], environment: ["HTTPS_PROXY": "http://corp:8080", "NO_PROXY": noProxy])
            #expect(excluded.apns.proxy(for: "api.push.apple.com") == nil, "NO_PROXY=\(noProxy)")
        }
        let other = try PushServiceConfiguration.load(
            arguments: [], environment: ["HTTPS_PROXY": "http://corp:8080", "no_proxy": "example.org,pple.com"])
        #expect(other.apns.proxy(for: "api.push.apple.com")?.host == "corp")
        let explicit = try PushServiceConfiguration.load(
            arguments: ["--apns-proxy", "socks5://mine:1"],
            environment: ["HTTPS_PROXY": "http://corp:8080", "NO_PROXY": "*"])
        #expect(explicit.apns.proxy(for: "api.push.apple.com")?.host == "mine", "an explicit proxy ignores NO_PROXY")
    }

    @Test("a bad proxy URL stops the start with exit 78 and without repeating the credentials")
    func badURL() {
        for (arguments, environment) in [
            (["--apns-proxy", "https://p:1"], [:]), ([], ["PUSH_APNS_PROXY": "gopher://user:sekrit@p"]),
            ([], ["HTTPS_PROXY": "user:sekrit@p:1"]),
        ] as [([String], [String: String])] {
            do {
                _ = try PushServiceConfiguration.load(arguments: arguments, environment: environment)
                Issue.record("\(arguments) \(environment) must fail")
            } catch {
                #expect(error.exitCode == 78)
                #expect(!error.message.contains("sekrit"), "\(error.message)")
            }
        }
    }
}
