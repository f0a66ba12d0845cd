import APNSCore
import Foundation
import JSON
import Testing

/// `--output table|json|yaml` on every command that prints an answer, `--json` as `--output json`, and YAML that
/// reads back (with Python's yaml) as the same data as the JSON.
@Suite("pushctl --output", .serialized)
struct OutputFormatTests {
    @Test("every list and show command prints the same data as table, json (or --json) and yaml")
    func everyCommand() async throws {
        let server = try await EmbeddedServer.start()
        defer { _ = server.stop() }
        let env = server.environment
        let tricky = "yes: no # not a comment\n- \"quoted\" 'single' \\ 123 ünï ☃"
        for (id, bio) in [("alice", tricky), ("bob", "true")] {
            let put = try PushCtlProcess.run(["users", "put", id, "--name", "N", "--dog-name", "007", "--bio", bio], environment: env)
            #expect(put.status == 0, "\(put.stderr)")
        }
        let token = String(repeating: "cd", count: 32)
        let add = try PushCtlProcess.run(
            [
                "devices", "add", "--token", token, "--user", "alice", "--environment", "development",
                "--output", "yaml",
            ], environment: env)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.contains("token: \(token)\n"), "\(add.stdout)")
        let drop = try PushCtlProcess.run(["drop", "report", "--user", "alice", "--peer", "bob", "--distance", "0.2"], environment: env)
        #expect(drop.status == 0, "\(drop.stderr)")
        let send = try PushCtlProcess.run(["send", "--user", "alice", "--body", "hi", "--wait", "--output", "json"], environment: env)
        let pushID = try #require(try JSONValue.parse(Array(send.stdout.utf8))["push_id"]?.stringValue, "\(send.stderr)")
        let commands: [(arguments: [String], tableText: String)] = [
            (["devices", "ls", "--user", "alice"], "TOKEN"),
            (["mate-requests", "ls", "--user", "alice"], "no mate requests"),
            (["users", "get", "alice"], "FIELD"),
            (["pushes", "get", pushID], "STATE"),
            (["drop", "status", "--user", "alice"], "pending"),
            (["version"], "pushctl "),
        ]
        for command in commands {
            let table = try PushCtlProcess.run(command.arguments, environment: env)
            #expect(table.status == 0, "\(command.arguments): \(table.stderr)")
            #expect(table.stdout.contains(command.tableText), "\(command.arguments): \(table.stdout)")
            #expect(try PushCtlProcess.run(command.arguments + ["--output", "table"], environment: env).stdout == table.stdout)
            let json = try PushCtlProcess.run(command.arguments + ["--output", "json"], environment: env)
            let alias = try PushCtlProcess.run(command.arguments + ["--json"], environment: env)
            #expect(json.status == 0 && alias.status == 0)
            #expect(try JSONValue.parse(Array(json.stdout.utf8)) == JSONValue.parse(Array(alias.stdout.utf8)), "\(command.arguments)")
            let yaml = try PushCtlProcess.run(command.arguments + ["--output", "yaml"], environment: env)
            #expect(yaml.status == 0, "\(command.arguments): \(yaml.stderr)")
            #expect(try Self.sameData(yaml: yaml.stdout, json: json.stdout), "\(command.arguments):\n\(yaml.stdout)")
        }
        let status = try PushCtlProcess.run(["status", "--output", "yaml"], environment: env)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("healthy: true\n"), "\(status.stdout)")
        let user = try PushCtlProcess.run(["users", "get", "alice", "--output", "json"], environment: env)
        #expect(try JSONValue.parse(Array(user.stdout.utf8))["bio"]?.stringValue == tricky)
    }

    @Test(
        "--output with a bad format, or --json with another --output, is a usage error",
        arguments: [
            ["devices", "ls", "--user", "a", "--output", "xml"], ["status", "--json", "--output", "yaml"],
            ["version", "--output"], ["send", "--user", "a", "--body", "x", "--output", "csv"],
        ])
    func usage(_ arguments: [String]) throws {
        let result = try PushCtlProcess.run(arguments + ["--url", "http://127.0.0.1:1"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("--json with --output json is allowed")
    func jsonTwice() throws {
        let result = try PushCtlProcess.run(["version", "--json", "--output", "json"])
        #expect(result.status == 0)
        #expect(try JSONValue.parse(Array(result.stdout.utf8))["name"]?.stringValue == "pushctl")
    }

    /// Whether Python's yaml reads `yaml` as the data json reads `json` as.
    static func sameData(yaml: String, json: String) throws -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushctl-yaml-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(yaml.utf8).write(to: directory.appendingPathComponent("a.yaml"))
        try Data(json.utf8).write(to: directory.appendingPathComponent("a.json"))
        let check =
            "import json, sys, yaml; a = yaml.safe_load(open('a.yaml', encoding='utf-8')); "
            + "b = json.load(open('a.json', encoding='utf-8')); print(a == b); sys.exit(0 if a == b else 1)"
        let result = try Shell.run("/usr/bin/python3", ["-c", check], in: directory)
        return result.status == 0
    }
}
