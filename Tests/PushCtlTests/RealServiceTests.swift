import APNSCore
import Foundation
import JSON
import PushChaos
import TestSupport
import Testing

/// A `push-server --embedded` child (built next to pushctl) on a fresh data directory, stopped with SIGTERM.
final class EmbeddedServer {
    let process: PushServerProcess
    let directory: URL
    let apiKey = "K"
    var url: String { "http://127.0.0.1:\(process.port)" }
    var environment: [String: String] { ["PUSHCTL_URL": url, "PUSHCTL_API_KEY": apiKey] }

    private init(process: PushServerProcess, directory: URL) {
        self.process = process
        self.directory = directory
    }

    static func start() async throws -> EmbeddedServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushctl-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let binary = PushCtlProcess.binary.deletingLastPathComponent().appendingPathComponent("push-server").path
        // A one-hour drop window: a pending drop these tests read back must not expire on a slow machine
        // (sanitizer builds run many times slower than the default ten seconds allow).
        let config = directory.appendingPathComponent("push-server.json").path
        try #"{"drops": {"window_s": 3600}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let process = try await PushServerProcess.start(
            binary: binary,
            arguments: [
                "--config", config, "--embedded", "--data-dir", directory.path, "--port", "0",
                "--api-key-file", try SecretFiles.write("K", to: directory.path + "/test-api-key"),
            ])
        return EmbeddedServer(process: process, directory: directory)
    }

    /// SIGTERM, then the exit status.
    func stop() -> Int32 {
        let status = process.stop(SIGTERM)
        try? FileManager.default.removeItem(at: directory)
        return status
    }
}

@Suite("pushctl against a real push-server --embedded", .serialized)
struct RealServiceTests {
    @Test("users put, devices add, send --user --wait (accepted), pushes get, status")
    func userFlow() async throws {
        let server = try await EmbeddedServer.start()
        defer { _ = server.stop() }
        let env = server.environment
        let put = try PushCtlProcess.run(["users", "put", "alice", "--name", "Alice", "--dog-name", "Bori", "--age", "3"], environment: env)
        #expect(put.status == 0, "\(put.stderr)")
        #expect(put.stdout.contains("created user alice"))
        let token = String(repeating: "ab", count: 32)
        let add = try PushCtlProcess.run(
            ["devices", "add", "--token", token, "--user", "alice", "--environment", "development"],
            environment: env)
        #expect(add.status == 0, "\(add.stderr)")
        let list = try PushCtlProcess.run(["devices", "ls", "--user", "alice", "--json"], environment: env)
        #expect(try JSONValue.parse(Array(list.stdout.utf8))["devices"]?[0]?["token"]?.stringValue == token)
        let send = try PushCtlProcess.run(
            ["send", "--user", "alice", "--title", "Woof", "--body", "Hi", "--wait", "--json"],
            environment: env)
        #expect(send.status == 0, "\(send.stdout) \(send.stderr)")
        let answer = try JSONValue.parse(Array(send.stdout.utf8))
        #expect(answer["complete"]?.boolValue == true)
        #expect(answer["notifications"]?[0]?["state"]?.stringValue == "accepted")
        let pushID = try #require(answer["push_id"]?.stringValue)
        let get = try PushCtlProcess.run(["pushes", "get", pushID], environment: env)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout.contains("accepted"))
        let table = try PushCtlProcess.run(["send", "--user", "alice", "--body", "again", "--wait"], environment: env)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("STATE") && table.stdout.contains("accepted"))
        let status = try PushCtlProcess.run(["status", "--json"], environment: env)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try JSONValue.parse(Array(status.stdout.utf8))["healthy"]?.boolValue == true)
        let noDevices = try PushCtlProcess.run(["send", "--user", "nobody", "--body", "x"], environment: env)
        #expect(noDevices.status == 1)
        #expect(noDevices.stderr.contains("no active device"))
        let bob = try PushCtlProcess.run(["users", "put", "bob", "--name", "Bob", "--dog-name", "Kong"], environment: env)
        #expect(bob.status == 0, "\(bob.stderr)")
        let drop = try PushCtlProcess.run(
            [
                "drop", "report", "--user", "alice", "--peer", "bob", "--distance", "0.2",
                "--direction", "0,0,-1", "--json",
            ], environment: env)
        #expect(drop.status == 0, "\(drop.stderr)")
        #expect(try JSONValue.parse(Array(drop.stdout.utf8))["state"]?.stringValue == "pending")
        let dropStatus = try PushCtlProcess.run(["drop", "status", "--user", "alice"], environment: env)
        #expect(dropStatus.status == 0, "\(dropStatus.stderr)")
        #expect(dropStatus.stdout.contains("pending"))
        let cancel = try PushCtlProcess.run(["drop", "cancel", "--user", "alice"], environment: env)
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout.contains("cancelled"))
        let mates = try PushCtlProcess.run(["mate-requests", "ls", "--user", "alice", "--role", "sender", "--json"], environment: env)
        #expect(mates.status == 0, "\(mates.stderr)")
        #expect(try JSONValue.parse(Array(mates.stdout.utf8))["mate_requests"]?.arrayValue?.isEmpty == true)
        let badKey = try PushCtlProcess.run(["users", "get", "alice"], environment: ["PUSHCTL_URL": server.url, "PUSHCTL_API_KEY": "wrong"])
        #expect(badKey.status == 77)
    }

    static let bulkCount = 100_000

    @Test("a bulk send of 100,000 unregistered tokens is queued in batches with a summary")
    func bulk() async throws {
        let server = try await EmbeddedServer.start()
        defer { _ = server.stop() }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bulk-real-\(UUID().uuidString).txt")
        var text = ""
        for index in 0..<Self.bulkCount { text += "cd" + String(format: "%062x", index) + "\n" }
        try Data(text.utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let start = Date()
        let result = try PushCtlProcess.run(
            ["send", "--tokens-file", path.path, "--body", "Park meetup at 5", "--json"],
            environment: server.environment)
        let seconds = Date().timeIntervalSince(start)
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try JSONValue.parse(Array(result.stdout.utf8))
        #expect(summary["total"]?.intValue == Self.bulkCount)
        #expect(summary["batches"]?.intValue == Self.bulkCount / 5000)
        #expect(summary["outcomes"]?["queued"]?.intValue == Self.bulkCount)
        print("bulk: \(Self.bulkCount) tokens in \(String(format: "%.1f", seconds))s")
    }
}
