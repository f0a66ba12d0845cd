import Foundation
import Testing

/// Every help page, byte for byte, against `Tests/Fixtures/pushctl-help.txt`: a change to how commands are
/// declared or rendered cannot alter what `--help` prints unnoticed. After an intended help change, rewrite the
/// fixture with `PUSHCTL_HELP_RECORD=1 swift test --skip-build --filter HelpTextTests`.
@Suite("pushctl help text")
struct HelpTextTests {
    /// The top level, every group and every leaf, in the order of `pushctl --help`.
    static let commands: [[String]] = [
        [], ["pushes"], ["devices"], ["users"], ["drop"], ["mate-requests"], ["apps"], ["webhooks"], ["channels"], ["send"],
        ["pushes", "get"], ["devices", "add"], ["devices", "rm"], ["devices", "ls"], ["users", "put"], ["users", "get"],
        ["drop", "report"], ["drop", "cancel"], ["drop", "status"], ["mate-requests", "ls"], ["mate-requests", "accept"],
        ["mate-requests", "decline"], ["apps", "ls"], ["webhooks", "add"], ["webhooks", "ls"], ["webhooks", "rm"],
        ["webhooks", "deliveries"], ["channels", "add"], ["channels", "ls"], ["channels", "rm"], ["channels", "apple"],
        ["channels", "reconcile"], ["broadcast"], ["status"],
        ["reload"], ["version"], ["mock-apns"], ["completion"],
    ]

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pushctl-help.txt")

    @Test("--help of every command prints exactly the recorded page and exits 0")
    func pages() throws {
        var text = ""
        for command in Self.commands {
            let result = try PushCtlProcess.run(command + ["--help"])
            text += "$ " + (["pushctl"] + command + ["--help"]).joined(separator: " ") + "\n"
            text += result.stdout + "exit \(result.status)\n"
        }
        if ProcessInfo.processInfo.environment["PUSHCTL_HELP_RECORD"] == "1" {
            try Data(text.utf8).write(to: Self.fixture)
        }
        let recorded = try String(contentsOf: Self.fixture, encoding: .utf8)
        let actual = text.split(separator: "\n", omittingEmptySubsequences: false)
        let expected = recorded.split(separator: "\n", omittingEmptySubsequences: false)
        let first = (0..<min(actual.count, expected.count)).first { actual[$0] != expected[$0] } ?? min(actual.count, expected.count)
        #expect(
            text == recorded,
            """
            help differs from \(Self.fixture.lastPathComponent) at line \(first + 1):
              printed:  \(first < actual.count ? String(actual[first]) : "(end)")
              recorded: \(first < expected.count ? String(expected[first]) : "(end)")
            """)
    }

    @Test(
        "a missing positional is named as the help's ARGUMENTS name it; an extra one is refused",
        arguments: [
            (["users", "get"], "missing argument <id>"), (["users", "put"], "missing argument <id>"),
            (["pushes", "get"], "missing argument <push-id>"), (["devices", "rm"], "missing argument <token>"),
            (["mate-requests", "accept"], "missing argument <request-id>"), (["channels", "rm"], "missing argument <channel-id>"),
            (["webhooks", "add"], "missing argument <url>"), (["webhooks", "deliveries"], "missing argument <id>"),
            (["apps", "ls", "extra"], "unexpected argument 'extra'"), (["users", "get", "a", "b"], "unexpected argument 'b'"),
        ])
    func positionals(_ command: [String], _ message: String) throws {
        let result = try PushCtlProcess.run(command)
        let name = command.prefix(2).joined(separator: " ")
        #expect(result.status == 64)
        #expect(result.stderr == "pushctl: error: \(message) (hint: run 'pushctl \(name) --help')\n")
        #expect(result.stdout.isEmpty)
    }
}
