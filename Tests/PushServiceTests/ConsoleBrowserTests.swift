import Foundation
import PushChaos
import TestSupport
import Testing

/// The web console in a real browser: Debian's Chromium, headless, driven by Selenium (PyPI, pinned in
/// .build/console-venv by `make console-tools`) through Tests/Console/console_browser.py, against
/// `push-server --embedded` on each store. The overview's screenshot is kept in .build/console/.
@Suite("the web console in headless Chromium (Selenium)", .serialized)
struct ConsoleBrowserTests {
    static let root = OpenAPIConformanceTests.root

    @Test(
        "sign in, both apps, a test push accepted, the mock's rejection reason shown, sign out, refusals, no browser errors",
        .timeLimit(.minutes(5)), arguments: OpenAPIConformanceTests.Store.allCases)
    func browser(store: OpenAPIConformanceTests.Store) async throws {
        let python = Self.root + "/.build/console-venv/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "run `make console-tools` (make test does)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"), "run `make deps` (chromium-driver)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = "operator-" + UUID().uuidString
        let readKey = "viewer-" + UUID().uuidString
        let config = """
            {"api_keys": [{"name": "operator", "key": "\(key)"}, {"name": "viewer", "key": "\(readKey)", "scopes": ["read"]}],
             "console_session_secret": "\(UUID().uuidString)\(UUID().uuidString)"}
            """
        try config.write(toFile: directory + "/config.json", atomically: true, encoding: .utf8)
        var arguments = [
            "--embedded", "--data-dir", directory + "/data", "--port", "0", "--log-level", "warning", "--config", directory + "/config.json",
        ]
        if store == .postgres {
            arguments += ["--database", try await PostgresTestCluster.shared().createDatabase()]
        }
        let server = try await PushServerProcess.start(binary: BuiltServer.path, arguments: arguments, logPath: directory + ".log")
        defer { _ = server.stop(SIGTERM) }
        let artifacts = Self.root + "/.build/console"
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let screenshot = artifacts + "/overview-\(store.rawValue).png"
        try? FileManager.default.removeItem(atPath: screenshot)
        let run = try await ToolProcess.run(
            python,
            [
                Self.root + "/Tests/Console/console_browser.py", "--url", "http://127.0.0.1:\(server.port)", "--key", key,
                "--read-key", readKey, "--screenshot", screenshot,
            ], timeout: 240, in: directory)
        #expect(run.status == 0, "console browser test failed:\n\(run.output.suffix(6000))")
        #expect(run.output.contains("console browser test: ok"), "\(run.output.suffix(2000))")
        let png = try #require(FileManager.default.contents(atPath: screenshot), "no screenshot at \(screenshot)")
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the screenshot is not a PNG")
    }
}
