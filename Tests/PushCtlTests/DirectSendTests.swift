import APNSCore
import Foundation
import JSON
import Testing

@Suite("send --direct against pushctl mock-apns")
struct DirectSendTests {
    static let token = String(repeating: "ab", count: 32)

    @Test("the credentials mock-apns wrote get a push accepted, and SIGINT stops it with 0")
    func accepted() throws {
        let mock = try MockAPNSProcess()
        let result = try PushCtlProcess.run(mock.directArguments + ["--token", Self.token, "--title", "Hi", "--body", "Woof"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("accepted apns-id "))
        let id = line.split(separator: " ")[2]
        #expect(APNSID.isValid(id))
        #expect(mock.stop() == 0)
    }

    @Test("token auth: the .p8 key mock-apns wrote gets a push accepted")
    func tokenAuth() throws {
        let mock = try MockAPNSProcess()
        let p8 = mock.path("p8")
        let keyID = mock.path("key_id")
        let teamID = mock.path("team_id")
        #expect(p8.hasSuffix("/AuthKey_\(keyID).p8"))
        let mode = try FileManager.default.attributesOfItem(atPath: p8)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let result = try PushCtlProcess.run([
            "send", "--direct", "--p8", p8, "--key-id", keyID, "--team-id", teamID, "--topic", mock.path("bundle_id"),
            "--host", "127.0.0.1", "--port", String(mock.port), "--ca", mock.path("ca"),
            "--token", Self.token, "--body", "Woof",
        ])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.hasPrefix("accepted apns-id "))
        // A wrong team id is refused by the mock (InvalidProviderToken), not accepted.
        let wrong = try PushCtlProcess.run([
            "send", "--direct", "--p8", p8, "--key-id", keyID, "--team-id", "OTHERTEAM1", "--topic", mock.path("bundle_id"),
            "--host", "127.0.0.1", "--port", String(mock.port), "--ca", mock.path("ca"), "--token", Self.token, "--body", "x",
        ])
        #expect(wrong.status != 0)
        #expect(mock.stop() == 0)
    }

    @Test("--json output parses back with JSONValue")
    func json() throws {
        let mock = try MockAPNSProcess()
        let result = try PushCtlProcess.run(mock.directArguments + ["--token", Self.token, "--data", "kind=mate", "--json"])
        #expect(result.status == 0)
        let value = try JSONValue.parse(Array(result.stdout.utf8))
        let first = try #require(value["results"]?[0])
        #expect(first["status"]?.stringValue == "accepted")
        #expect(first["token"]?.stringValue == Self.token)
        #expect(APNSID.isValid(first["apns_id"]?.stringValue ?? ""))
        #expect(mock.stop() == 0)
    }

    @Test("a --reject mock gives exit 2 and the reason")
    func rejected() throws {
        let mock = try MockAPNSProcess(["--reject", "BadDeviceToken"])
        let result = try PushCtlProcess.run(mock.directArguments + ["--token", Self.token, "--body", "x"])
        #expect(result.status == 2)
        #expect(result.stdout.contains("rejected 400 BadDeviceToken"))
        #expect(mock.stop() == 0)
    }

    @Test("fault flags: --rate-503 1 answers 503 ServiceUnavailable, with jitter and resets configured")
    func faultFlags() throws {
        let mock = try MockAPNSProcess(["--rate-503", "1", "--jitter-ms", "5", "--close-every", "1000", "--goaway-after", "1000"])
        let result = try PushCtlProcess.run(mock.directArguments + ["--token", Self.token, "--body", "x"])
        #expect(result.status == 2)
        #expect(result.stdout.contains("503 ServiceUnavailable"), "\(result.stdout)")
        #expect(mock.stop() == 0)
    }

    @Test("a 410 Unregistered prints its timestamp")
    func unregistered() throws {
        let mock = try MockAPNSProcess(["--reject", "Unregistered"])
        let result = try PushCtlProcess.run(mock.directArguments + ["--token", Self.token, "--body", "x", "--json"])
        #expect(result.status == 2)
        let first = try #require(try JSONValue.parse(Array(result.stdout.utf8))["results"]?[0])
        #expect(first["reason"]?.stringValue == "Unregistered")
        #expect(first["http_status"]?.intValue == 410)
        #expect((first["timestamp"]?.int64Value ?? 0) > 0)
        #expect(mock.stop() == 0)
    }

    @Test("a wrong password file exits 78 with one line")
    func wrongPassword() throws {
        let mock = try MockAPNSProcess()
        let passwordFile = mock.directory.appendingPathComponent("wrong.txt")
        try Data("not-it\n".utf8).write(to: passwordFile)
        var arguments = mock.directArguments + ["--token", Self.token, "--body", "x"]
        if let index = arguments.firstIndex(of: "--password-file") { arguments[index + 1] = passwordFile.path }
        let result = try PushCtlProcess.run(arguments)
        #expect(result.status == 78)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("wrong password"))
        #expect(mock.stop() == 0)
    }

    @Test("the password can come from PUSHCTL_P12_PASSWORD")
    func passwordFromEnvironment() throws {
        let mock = try MockAPNSProcess()
        var arguments = mock.directArguments + ["--token", Self.token, "--body", "x"]
        if let index = arguments.firstIndex(of: "--password-file") { arguments.removeSubrange(index...index + 1) }
        let password = mock.manifest["client_p12_password"] as? String ?? ""
        let result = try PushCtlProcess.run(arguments, environment: ["PUSHCTL_P12_PASSWORD": password])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(mock.stop() == 0)
    }

    @Test("a missing certificate exits 78")
    func missingCertificate() throws {
        let result = try PushCtlProcess.run([
            "send", "--direct", "--cert", "/nonexistent/c.p12", "--env", "development",
            "--token", Self.token, "--body", "x",
        ])
        #expect(result.status == 78)
    }

    @Test("a closed port exits 1 with a transport error")
    func closedPort() throws {
        let mock = try MockAPNSProcess()
        var arguments = mock.directArguments + ["--token", Self.token, "--body", "x"]
        let manifestCopy = mock.directory.deletingLastPathComponent().appendingPathComponent("pushctl-keep-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: mock.directory, to: manifestCopy)
        defer { try? FileManager.default.removeItem(at: manifestCopy) }
        #expect(mock.stop() == 0)
        arguments = arguments.map { $0.replacingOccurrences(of: mock.directory.path, with: manifestCopy.path) }
        let result = try PushCtlProcess.run(arguments)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("pushctl: error: could not send"))
    }
}
