import Foundation
import PushChaos
import TestSupport
import Testing

/// docs/openapi.yaml against the running server, driven by a third-party property-based tester, on each
/// store: what the contract promises (a created resource is readable, say) must hold on both.
@Suite("OpenAPI conformance (schemathesis)")
struct OpenAPIConformanceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The store a run's server keeps its data in.
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    @Test(
        "every operation, positive and negative cases, undeclared methods and stateful sequences: no disagreement",
        arguments: Store.allCases)
    func schemathesis(store: Store) async throws {
        let tool = Self.root + "/.build/conformance-venv/bin/schemathesis"
        try #require(FileManager.default.isExecutableFile(atPath: tool), "run `make conformance-tools` (make test does)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var arguments = ["--embedded", "--data-dir", directory, "--port", "0", "--log-level", "warning"]
        if store == .postgres {
            arguments += ["--database", try await PostgresTestCluster.shared().createDatabase()]
        }
        let server = try await PushServerProcess.start(binary: BuiltServer.path, arguments: arguments, logPath: directory + ".log")
        defer { _ = server.stop(SIGTERM) }
        let key = try String(contentsOfFile: directory + "/api-key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try await ToolProcess.run(
            tool,
            [
                "--config-file", Self.root + "/Tests/Conformance/schemathesis.toml", "--no-color",
                "run", Self.root + "/docs/openapi.yaml", "--url", "http://127.0.0.1:\(server.port)",
                "-H", "Authorization: Bearer \(key)", "--generation-deterministic",
                "--max-examples", "50", "--workers", "1",
            ], timeout: 400, in: directory, environment: ["SCHEMATHESIS_HOOKS": Self.root + "/Tests/Conformance/hooks.py"])
        #expect(run.status == 0, "schemathesis found disagreements:\n\(run.output.suffix(6000))")
        // The run really exercised the API: every operation, and the stateful phase.
        let spec = try String(contentsOfFile: Self.root + "/docs/openapi.yaml", encoding: .utf8)
        // One operation per `x-required-scope` line (links name operations too, so operationId would overcount).
        let operations = spec.components(separatedBy: "x-required-scope:").count - 1
        #expect(run.output.contains("Selected: \(operations)/\(operations)"), "\(run.output.suffix(2000))")
        #expect(run.output.contains("✅ Stateful"), "\(run.output.suffix(2000))")
        // The check that the hooks make usable ran, and no request carried a generated Idempotency-Key.
        #expect(!run.output.contains("Idempotency-Key:"), "\(run.output.suffix(2000))")
    }
}
