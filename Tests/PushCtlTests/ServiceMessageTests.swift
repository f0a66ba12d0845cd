import Foundation
import PushChaos
import Testing

/// Messages that name the fix: a refused key says where pushctl read it (or where it looked), a refused
/// connection says which URL (and from where) and whether push-server runs on this machine.
@Suite("pushctl messages that name the fix")
struct ServiceMessageTests {
    static let token = String(repeating: "ab", count: 32)

    /// A HOME with no pushctl config file, so the tests see only the sources they set.
    static func home() throws -> String {
        let path = NSTemporaryDirectory() + "pushctl-home-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("a 401 names the source of the wrong key: --api-key-file, PUSHCTL_API_KEY, the config file or ./var/api-key")
    func wrongKeySources() throws {
        let stub = try StubPushServer(apiKey: "k")
        defer { stub.stop() }
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let config = home + "/pushctl.json"
        try #"{"api_key": "wrong"}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let send = ["send", "--token", Self.token, "--body", "x", "--url", stub.url]
        let cases: [(arguments: [String], environment: [String: String], files: [String: String], source: String)] = [
            (send + ["--api-key-file", "key.txt"], ["PUSHCTL_API_KEY": "k"], ["key.txt": "wrong\n"], "from --api-key-file /"),
            (send, ["PUSHCTL_API_KEY": "wrong", "PUSHCTL_CONFIG": config], [:], "from PUSHCTL_API_KEY"),
            (send, ["PUSHCTL_CONFIG": config], ["var/api-key": "k"], "from the config file \(config) (api_key)"),
            (send, [:], ["var/api-key": "wrong\n"], "from ./var/api-key (/"),
        ]
        for item in cases {
            let result = try PushCtlProcess.run(
                item.arguments, environment: item.environment.merging(["HOME": home]) { $1 },
                files: item.files)
            #expect(result.status == 77, "\(item.source): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stderr.contains("refused the API key " + item.source), "\(result.stderr)")
            #expect(result.stderr.contains(stub.url))
            #expect(result.stderr.contains("hint: fix the key in"))
        }
        let right = try PushCtlProcess.run(
            send + ["--api-key-file", "key.txt"], environment: ["PUSHCTL_API_KEY": "wrong", "HOME": home],
            files: ["key.txt": "k\n"])
        #expect(right.status == 0, "--api-key-file wins over PUSHCTL_API_KEY: \(right.stderr)")
    }

    @Test("a 401 with no key at all lists every place pushctl looked")
    func noKey() throws {
        let stub = try StubPushServer(apiKey: "k")
        defer { stub.stop() }
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let result = try PushCtlProcess.run(["users", "get", "alice", "--url", stub.url], environment: ["HOME": home])
        #expect(result.status == 77)
        for place in [
            "found none", "--api-key-file", "PUSHCTL_API_KEY", "the config file \(home)/.config/pushctl/config.json (api_key)",
            "./var/api-key in /",
        ] {
            #expect(result.stderr.contains(place), "\(place): \(result.stderr)")
        }
    }

    @Test("a missing --api-key-file is a config error (78)")
    func missingKeyFile() throws {
        let result = try PushCtlProcess.run(["status", "--url", "http://127.0.0.1:1", "--api-key-file", "/nonexistent/key"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("/nonexistent/key"))
    }

    @Test("a refused connection names the URL and where it came from, and whether push-server runs here")
    func refusedSources() throws {
        let home = try Self.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let config = home + "/pushctl.json"
        try #"{"url": "http://127.0.0.1:1/"}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let cases: [([String], [String: String], String)] = [
            (["--url", "http://127.0.0.1:1"], [:], "(URL from --url)"),
            ([], ["PUSHCTL_URL": "http://127.0.0.1:1"], "(URL from PUSHCTL_URL)"),
            ([], ["PUSHCTL_CONFIG": config], "(URL from the config file \(config) (url))"),
        ]
        for (arguments, environment, source) in cases {
            let result = try PushCtlProcess.run(
                ["devices", "ls", "--user", "alice"] + arguments,
                environment: environment.merging(["HOME": home]) { $1 })
            #expect(result.status == 69)
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(
                result.stderr.contains("cannot reach push-server at http://127.0.0.1:1 \(source): connection refused"),
                "\(result.stderr)")
            #expect(result.stderr.contains("nothing accepts connections on 127.0.0.1:1"))
            // Other push-servers may run on this machine (other suites); either verdict names its fix.
            #expect(
                result.stderr.contains("no push-server process is running on this machine (hint: start it with 'make run'")
                    || result.stderr.contains("push-server is running, but elsewhere: pid "), "\(result.stderr)")
        }
    }

    @Test("with push-server running elsewhere, a refused connection lists where it listens and the --url that reaches it")
    func runningElsewhere() async throws {
        let server = try await EmbeddedServer.start()
        defer { _ = server.stop() }
        let result = try PushCtlProcess.run(["status", "--url", "http://127.0.0.1:1"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("push-server is running, but elsewhere: "), "\(result.stderr)")
        let running = try #require(result.stderr.components(separatedBy: "but elsewhere: ").last)
        #expect(running.contains(" listening on port ") && running.contains(String(server.process.port)), "\(result.stderr)")
        #expect(result.stderr.contains("--url \(server.url)"), "\(result.stderr)")
        let reached = try PushCtlProcess.run(["status", "--url", server.url, "--api-key-file", "key"], files: ["key": "K"])
        #expect(reached.status == 0, "\(reached.stderr)")
    }

    @Test("a remote host that refuses gets no guess about local processes")
    func remoteRefused() throws {
        let result = try PushCtlProcess.run(["status", "--url", "http://127.0.0.2:1"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("check that push-server runs on 127.0.0.2 and listens on port 1"), "\(result.stderr)")
    }
}
