import Foundation
import TestSupport
import Testing

/// One version string: what push-server and pushctl print, and so what `make deb` names the package.
@Suite("push-server --version and pushctl --version")
struct ProgramVersionTests {
    @Test("both print the same major.minor.patch; push-server --help lists --version")
    func sameVersion() async throws {
        let binaries = PushCtlProcess.binary.deletingLastPathComponent()
        let server = try await ToolProcess.run(binaries.appendingPathComponent("push-server").path, ["--version"])
        let ctl = try await ToolProcess.run(PushCtlProcess.binary.path, ["--version"])
        #expect(server.status == 0 && ctl.status == 0, "\(server.output)\(ctl.output)")
        let version = try #require(server.output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        #expect(server.output == "push-server \(version)\n")
        #expect(ctl.output == "pushctl \(version)\n")
        #expect(version.split(separator: ".").count == 3 && version.split(separator: ".").allSatisfy { Int($0) != nil }, "\(version)")
        let help = try await ToolProcess.run(binaries.appendingPathComponent("push-server").path, ["--help"])
        #expect(help.output.contains("--version"), "\(help.output)")
    }
}
