import Foundation
import TestSupport
import Testing

/// The repository's `deploy/` directory.
enum DeployDirectory {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy")
    static func path(_ relative: String) -> String { url.appendingPathComponent(relative).path }
}

@Suite("deploy/: the systemd unit and the Prometheus rules")
struct DeployFileTests {
    static let unitPath = DeployDirectory.path("systemd/push-server.service")

    @Test("systemd-analyze verify accepts the unit without a single complaint")
    func unitVerifies() async throws {
        // verify insists that ExecStart names an existing executable: check a copy that runs the binary
        // built here, with every other line exactly as shipped.
        let unit = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
        let shipped = "ExecStart=/usr/local/bin/push-server"
        #expect(unit.components(separatedBy: "\n").filter { $0 == shipped }.count == 1)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-unit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let copy = directory + "/push-server.service"
        try unit.replacingOccurrences(of: shipped, with: "ExecStart=\(BuiltServer.path)").write(toFile: copy, atomically: true, encoding: .utf8)
        let result = try await ToolProcess.run("systemd-analyze", ["verify", copy])
        // verify exits 0 even for lines it ignores ("Failed to parse ..."), so any output is a failure.
        #expect(result.status == 0 && result.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(result.output)")
    }

    @Test("the unit is Type=notify with a watchdog, reloads with SIGHUP, and is hardened")
    func unitSettings() throws {
        let lines = Set(try String(contentsOfFile: Self.unitPath, encoding: .utf8).split(separator: "\n").map(String.init))
        for required in [
            "Type=notify", "NotifyAccess=main", "ExecReload=/bin/kill -HUP $MAINPID", "DynamicUser=yes",
            "StateDirectory=push-server", "ProtectSystem=strict", "NoNewPrivileges=yes", "ProtectHome=yes",
            "PrivateTmp=yes", "CapabilityBoundingSet=", "EnvironmentFile=/etc/push-server/push-server.env",
            "Environment=PUSH_DATA_DIR=%S/push-server",
        ] {
            #expect(lines.contains(required), "missing \(required)")
        }
        #expect(lines.contains { $0.hasPrefix("WatchdogSec=") })
        #expect(FileManager.default.fileExists(atPath: DeployDirectory.path("systemd/push-server.env")))
    }

    @Test("promtool: the alert rules are valid and their unit tests pass")
    func alertRules() async throws {
        let check = try await ToolProcess.run("promtool", ["check", "rules", DeployDirectory.path("prometheus/alerts.yml")])
        #expect(check.status == 0 && check.output.contains("SUCCESS"), "\(check.output)")
        let test = try await ToolProcess.run("promtool", ["test", "rules", DeployDirectory.path("prometheus/alerts_test.yml")])
        #expect(test.status == 0 && test.output.contains("SUCCESS"), "\(test.output)")
    }
}
