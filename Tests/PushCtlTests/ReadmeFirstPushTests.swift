import Foundation
import PushChaos
import TestSupport
import Testing

/// The README's "A first push" runs as written: its shell blocks are read from README.md and run by bash
/// against `push-server --embedded` on a fresh data directory, so the page cannot drift from what works.
/// Only what the page leaves to the reader's machine is substituted: the port (the server picks a free one
/// here, not 8080, and pushctl is told with `PUSHCTL_URL`, which the README names), the binary's path
/// (the test build's, not the release one) and the push id the reader copies from `send`'s answer.
@Suite("README: a first push")
struct ReadmeFirstPushTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The `sh` blocks of the section headed `title`, in order.
    static func shellBlocks(in text: String, section title: String) -> [String] {
        guard let start = text.range(of: "\n## \(title)\n") else { return [] }
        let rest = text[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        return section.components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
    }

    @Test("the README's first push, with curl and with pushctl, works as written")
    func firstPush() async throws {
        let blocks = Self.shellBlocks(in: try String(contentsOf: Self.readme, encoding: .utf8), section: "A first push")
        try #require(blocks.count == 2, "the section has a curl block and a pushctl block")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let binaries = PushCtlProcess.binary.deletingLastPathComponent()
        let server = try await PushServerProcess.start(
            binary: binaries.appendingPathComponent("push-server").path,
            arguments: ["--embedded", "--data-dir", directory.appendingPathComponent("var").path, "--port", "0"])
        defer { _ = server.stop(SIGTERM) }

        let curl = blocks[0].replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(server.port)")
        var pushctl = blocks[1].replacingOccurrences(of: "./.build/release/pushctl", with: PushCtlProcess.binary.path)
        let send = try #require(pushctl.split(separator: "\n").first { $0.hasPrefix("pushctl send ") })
        pushctl = pushctl.replacingOccurrences(
            of: String(send),
            with: #"SENT=$(\#(send)); echo "$SENT"; PUSH_ID=$(echo "$SENT" | sed -n 's/^push \([^:]*\):.*/\1/p')"#)
        #expect(pushctl.contains("<push-id>"), "the page shows where the push id goes")
        pushctl = pushctl.replacingOccurrences(of: "<push-id>", with: #""$PUSH_ID""#)
        // Each line's failure stops the script (the curl lines print the service's JSON, checked below).
        let script = "set -euo pipefail\nshopt -s expand_aliases\n" + curl + "\necho\n" + pushctl + "\n"
        let result = try await ToolProcess.run(
            "/bin/bash", ["-c", script], timeout: 120, in: directory.path,
            environment: ["PUSHCTL_URL": "http://127.0.0.1:\(server.port)"])
        #expect(result.status == 0, "\(result.output)")
        for expected in [
            #""id":"rex""#, #""user_id":"rex""#, #""complete":true,"counts":{"accepted":1}"#, "created user bori",
            "registered cdcd", ": complete", "accepted  -       200", "healthy", "matched (rex -> bori)", "pending",
        ] {
            #expect(result.output.contains(expected), "\(expected) in:\n\(result.output)")
        }
        // `pushctl pushes get` answered for the id `send` printed.
        #expect(result.output.components(separatedBy: "accepted  -       200").count - 1 == 2, "\(result.output)")
    }
}
