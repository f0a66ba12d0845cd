import Foundation
import PushTLSTesting
import TestSupport
import Testing

@testable import PushService

@Suite("push-server start-up checks")
struct StartupCheckTests {
    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("push-startup-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func run(_ arguments: [String]) async -> Int32 {
        await PushServerLauncher.main(arguments: arguments + ["--port", "0", "--log-level", "error"], environment: [:])
    }

    /// Loads and launches as `push-server` does and returns the configuration error that stopped it; nil
    /// (after stopping the server) when it started, so a check that lets a bad setting through cannot hang.
    static func startupError(_ arguments: [String]) async -> ConfigurationError? {
        do {
            var configuration = try PushServiceConfiguration.load(
                arguments: arguments + ["--port", "0", "--log-level", "error"], environment: [:])
            let launched = try await PushServerLauncher.launch(&configuration)
            await launched.server.shutdown()
            return nil
        } catch let error as ConfigurationError {
            return error
        } catch {
            return ConfigurationError("not a configuration error: \(error)", exitCode: -1)
        }
    }

    @Test("missing .p12, wrong password, expired certificate and unwritable database each exit 78, naming the check")
    func configurationErrorsExit78() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try TestCredentialFiles.write(to: directory + "/creds", bundleID: "com.example.sniffmeet", password: "secret")
        let authority = try TestCertificateAuthority()
        let expired = try authority.issueClientCertificate(
            bundleID: "com.example.sniffmeet",
            notBefore: Date().addingTimeInterval(-7200),
            notAfter: Date().addingTimeInterval(-3600))
        let expiredPath = directory + "/expired.p12"
        _ = FileManager.default.createFile(atPath: expiredPath, contents: Data(try expired.pkcs12(password: "pw")))
        let keyFile = try SecretFiles.write("k", to: directory + "/api-key")
        let common = ["--data-dir", directory + "/data", "--api-key-file", keyFile]
        func passwordFile(_ password: String) throws -> String { try SecretFiles.write(password, to: directory + "/p12-\(password).password") }
        let cases: [(arguments: [String], message: String)] = [
            (
                common + ["--apns-p12", directory + "/missing.p12", "--apns-password-file", try passwordFile("x")],
                "APNs certificate \(directory)/missing.p12 does not exist or cannot be read"
            ),
            (
                common + ["--apns-p12", files.clientP12Path, "--apns-password-file", try passwordFile("wrong")],
                "wrong password for APNs certificate \(files.clientP12Path)"
            ),
            (
                common + ["--apns-p12", expiredPath, "--apns-password-file", try passwordFile("pw")],
                "APNs certificate \(expiredPath) has expired or is not yet valid"
            ),
            (
                common + ["--apns-p12", files.clientCertificatePath, "--apns-password-file", files.clientP12PasswordPath],
                "APNs certificate \(files.clientCertificatePath) is not a PKCS#12 (.p12) file"
            ),
            (
                [
                    "--database", "/dev/null/nope/push.sqlite", "--api-key-file", keyFile, "--apns-p12", files.clientP12Path,
                    "--apns-password-file", files.clientP12PasswordPath,
                ],
                "database directory /dev/null/nope cannot be created"
            ),
            (
                ["--data-dir", directory + "/data", "--apns-p12", files.clientP12Path, "--apns-password-file", files.clientP12PasswordPath],
                "no API key configured"
            ),
        ]
        for (arguments, message) in cases {
            let error = await Self.startupError(arguments)
            #expect(error?.exitCode == 78, "\(message): \(String(describing: error))")
            #expect(error?.message.hasPrefix(message) == true, "expected '\(message)…', got \(String(describing: error))")
        }
        // The exit code is the error's: 78 for these, 64 for a usage error.
        #expect(await Self.run(common + ["--apns-p12", directory + "/missing.p12", "--apns-password-file", try passwordFile("x")]) == 78)
        #expect(await Self.run(["--bogus"]) == 64)
    }

    @Test("file, environment and flags combine, later sources winning")
    func configurationLayers() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/config.json"
        try #"{"port": 9000, "topic": "a.b", "api_keys": ["file"], "apns": {"connections": 3}, "drops": {"window_s": 5}}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try PushServiceConfiguration.load(
            arguments: ["--config", file, "--port", "9100"],
            environment: ["PUSH_PORT": "9050", "PUSH_TOPIC": "c.d", "PUSH_API_KEY": "k1, k2"])
        #expect(configuration.port == 9100)
        #expect(configuration.topic == "c.d")
        #expect(configuration.apiKeys == [try APIKey(name: "key-1", secret: "k1"), try APIKey(name: "key-2", secret: "k2")])
        #expect(configuration.apns.connections == 3)
        #expect(configuration.dropWindow == .seconds(5))
        #expect(throws: ConfigurationError.self) {
            try PushServiceConfiguration.load(arguments: ["--port", "x"], environment: [:])
        }
    }

    @Test("the example configuration file loads")
    func exampleLoads() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let configuration = try PushServiceConfiguration.load(
            arguments: ["--config", root.appendingPathComponent("Resources/push-server.example.json").path], environment: [:])
        #expect(configuration.apns.connections == 2)
        #expect(configuration.topic == "com.example.sniffmeet")
        #expect(configuration.retention == RetentionPolicy())
    }
}
