import Foundation
import TestSupport
import Testing

/// `pushctl mock-apns` driven by a third-party APNs client from PyPI: what a client that works against
/// Apple sends must work against the mock too (a string `iat` in the provider token, Live Activity
/// payloads). The client is kalyke-apns, pinned in the venv `make conformance-tools` makes (`make test`
/// runs it first); the script is `Tests/ThirdParty/kalyke_mock_apns.py`.
@Suite("Third-party APNs client against pushctl mock-apns")
struct ThirdPartyClientTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test("kalyke-apns with a .p8 token: an alert and a Live Activity start, update and end are accepted as sent")
    func kalyke() async throws {
        let python = Self.root + "/.build/conformance-venv/bin/python"
        let installed = FileManager.default.fileExists(
            atPath: Self.root + "/.build/conformance-venv/.kalyke-apns-1.5.0")
        try #require(FileManager.default.isExecutableFile(atPath: python) && installed, "run `make conformance-tools` (make test does)")
        let run = try await ToolProcess.run(
            python, [Self.root + "/Tests/ThirdParty/kalyke_mock_apns.py"], timeout: 120,
            environment: ["PUSHCTL": PushCtlProcess.binary.path, "PYTHONDONTWRITEBYTECODE": "1"])
        #expect(run.status == 0, "\(run.output.suffix(4000))")
        #expect(run.output.contains("kalyke-apns: alert and Live Activity start, update, end accepted"), "\(run.output.suffix(4000))")
    }
}
