import Foundation
import Testing

@Suite("service commands without a service")
struct ServiceCommandTests {
    static let closed = "http://127.0.0.1:1"

    @Test(
        "a closed port exits 69 with one line",
        arguments: [
            ["status"], ["users", "get", "alice"], ["devices", "ls", "--user", "alice"],
            ["send", "--user", "alice", "--body", "hi"], ["drop", "status", "--user", "alice"],
            ["mate-requests", "ls", "--user", "bob"],
        ])
    func unavailable(_ arguments: [String]) throws {
        let result = try PushCtlProcess.run(arguments + ["--url", Self.closed])
        #expect(result.status == 69)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("hint:"))
    }

    @Test("PUSHCTL_URL is used")
    func environmentURL() throws {
        let result = try PushCtlProcess.run(["status"], environment: ["PUSHCTL_URL": Self.closed])
        #expect(result.status == 69)
        #expect(result.stderr.contains("127.0.0.1:1"))
    }

    @Test("the config file named by PUSHCTL_CONFIG gives the URL; a broken one is a config error (78)")
    func configFile() throws {
        let path = NSTemporaryDirectory() + "pushctl-config-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"url": "http://127.0.0.1:1", "api_key": "k"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try PushCtlProcess.run(["status"], environment: ["PUSHCTL_CONFIG": path])
        #expect(result.status == 69)
        #expect(result.stderr.contains("127.0.0.1:1"))
        try "not json".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try PushCtlProcess.run(["status"], environment: ["PUSHCTL_CONFIG": path]).status == 78)
    }

    @Test("a bad URL is a config error (78)")
    func badURL() throws {
        let result = try PushCtlProcess.run(["status", "--url", "ftp:/x"])
        #expect(result.status == 78)
    }

    @Test("a missing tokens file is a config error (78)")
    func missingTokensFile() throws {
        let result = try PushCtlProcess.run(["send", "--tokens-file", "/nonexistent", "--body", "x", "--url", Self.closed])
        #expect(result.status == 78)
    }

    @Test("a tokens file with a bad line is a usage error naming the line")
    func badTokensFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).txt")
        try Data((String(repeating: "ab", count: 32) + "\n# comment\n\nnot-a-token\n").utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let result = try PushCtlProcess.run(["send", "--tokens-file", path.path, "--body", "x", "--url", Self.closed])
        #expect(result.status == 64)
        #expect(result.stderr.contains(":4: bad token"))
    }
}
