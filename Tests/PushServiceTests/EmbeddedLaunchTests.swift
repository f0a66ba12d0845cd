import EmbeddedAPNS
import Foundation
import JSON
import Testing

@testable import PushService

@Suite("the embedded mode's provider hook")
struct EmbeddedLaunchTests {
    @Test("--embedded without a provider is a configuration error (78) and writes no credentials")
    func noProvider() async throws {
        let directory = try StartupCheckTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = await StartupCheckTests.startupError(["--embedded", "--data-dir", directory])
        #expect(error?.exitCode == 78)
        #expect(error?.message == "--embedded is not available: this program has no embedded mock APNs")
        #expect(!FileManager.default.fileExists(atPath: directory + "/credentials"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/api-key"))
    }

    @Test("with EmbeddedMockAPNS the service runs its two apps, the configured topic first, and answers for both")
    func mockProvider() async throws {
        let directory = try StartupCheckTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = try PushServiceConfiguration.load(
            arguments: ["--embedded", "--data-dir", directory, "--port", "0", "--log-level", "error", "--topic", "com.example.pack"],
            environment: [:])
        let launched = try await PushServerLauncher.launch(&configuration, embeddedAPNS: EmbeddedMockAPNS())
        let embedded = try #require(launched.embedded)
        #expect(configuration.topic == "com.example.pack")
        #expect(embedded.apps.map(\.topic) == ["com.example.pack", EmbeddedMockAPNS.tokenTopic])
        #expect(configuration.apps.map(\.name) == ["sniffmeet", "dogwalk"])
        #expect(
            embedded.banner.last == "for two apps: sniffmeet (com.example.pack, .p8 token key) and dogwalk (com.example.dogwalk, .p12 certificate).")
        let key = try #require(launched.generatedKey?.key)
        let client = TestHTTPClient(port: launched.server.port, apiKey: key)
        let apps = try await client.send("GET", "/v1/apps")
        #expect(apps.status == 200)
        let listed = apps.json?["apps"]?.arrayValue ?? []
        #expect(listed.map { $0["name"]?.stringValue } == ["sniffmeet", "dogwalk"], "\(String(decoding: apps.body, as: UTF8.self))")
        #expect(listed.map { $0["topics"]?.arrayValue?.first?.stringValue } == ["com.example.pack", EmbeddedMockAPNS.tokenTopic])
        // The certificate app's topics come from its certificate (its UID: the generated one has no topics list).
        #expect(listed.last?["certificate_topics"] == [.string(EmbeddedMockAPNS.tokenTopic)], "\(String(decoding: apps.body, as: UTF8.self))")
        await launched.server.shutdown()
        embedded.stop()
    }

    @Test("the banner names the main app's mock control API first, and its latency knob delays the service's pushes (bench B7H)")
    func latencyKnob() async throws {
        let directory = try StartupCheckTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = try PushServiceConfiguration.load(
            arguments: ["--embedded", "--data-dir", directory, "--port", "0", "--log-level", "error"], environment: [:])
        let launched = try await PushServerLauncher.launch(&configuration, embeddedAPNS: EmbeddedMockAPNS())
        let embedded = try #require(launched.embedded)
        defer { embedded.stop() }
        // bench/b7_service.py --mock-latency-ms reads this line: `mock control APIs: sniffmeet http://127.0.0.1:N, dogwalk ...`.
        let prefix = "mock control APIs: "
        let line = try #require(embedded.banner.first { $0.hasPrefix(prefix) })
        let first = line.dropFirst(prefix.count).split(separator: ",")[0].split(separator: " ")
        #expect(first.first == "sniffmeet")
        let port = try #require(URLComponents(string: String(first.last ?? ""))?.port)
        let knobs = try await TestHTTPClient(port: port, apiKey: nil).send("PATCH", "/knobs", body: #"{"latency_ms":300}"#)
        #expect(knobs.status == 200 && knobs.json?["latency_ms"]?.doubleValue == 300, "\(knobs.text)")

        let key = try #require(launched.generatedKey?.key)
        let api = TestHTTPClient(port: launched.server.port, apiKey: key)
        let token = String(repeating: "ab", count: 32)
        let started = ContinuousClock.now
        let pushed = try await api.send(
            "POST", "/v1/pushes?wait=true", body: #"{"tokens":["\#(token)"],"environment":"development","alert":{"title":"t","body":"b"}}"#)
        let elapsed = ContinuousClock.now - started
        #expect(pushed.status == 200, "\(pushed.text)")
        #expect(pushed.json?["notifications"]?.arrayValue?.first?["state"] == "accepted", "\(pushed.text)")
        // The mock answers no earlier than its latency after the request: a lower bound, whatever the machine's load.
        #expect(elapsed >= .milliseconds(300), "answered after \(elapsed)")
        await launched.server.shutdown()
    }
}
