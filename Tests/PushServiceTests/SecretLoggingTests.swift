import APNSCore
import APNSMock
import Foundation
import JSON
import PushChaos
import PushTLSTesting
import TestSupport
import Testing

@Suite("secrets stay out of the logs")
struct SecretLoggingTests {
    @Test("at debug level, push-server logs neither API keys (right or wrong) nor the .p12 password")
    func noSecretsInLogs() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-secrets-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let password = "p12-password-\(UUID().uuidString)"
        let apiKey = "api-key-\(UUID().uuidString)"
        let wrongKey = "wrong-key-\(UUID().uuidString)"
        let files = try TestCredentialFiles.write(to: directory + "/creds", bundleID: ServiceHarness.topic, password: password)
        let mock = try MockAPNSServer(configuration: try MockAPNSServer.Configuration(credentialFiles: files))
        defer { mock.stop() }
        let logPath = directory + "/push-server.log"
        let server = try await PushServerProcess.start(
            binary: BuiltServer.path,
            arguments: [
                "--data-dir", directory + "/data", "--port", "0", "--api-key-file", try SecretFiles.write(apiKey, to: directory + "/api-key"),
                "--topic", ServiceHarness.topic, "--apns-p12", files.clientP12Path, "--apns-password-file", files.clientP12PasswordPath,
                "--apns-host", "127.0.0.1",
                "--apns-port", "\(mock.port)", "--apns-ca", files.caCertificatePath, "--log-level", "debug",
            ],
            logPath: logPath)
        let client = TestHTTPClient(port: server.port, apiKey: apiKey)
        #expect(try await client.send("PUT", "/v1/users/amy", json: ["name": "Amy", "dog_name": "Bo"]).status == 201)
        #expect(try await client.with(apiKey: wrongKey).send("GET", "/v1/users/amy").status == 401)
        #expect(
            try await client.send(
                "POST", "/v1/pushes",
                json: [
                    "tokens": .array([.string(ServiceHarness.randomToken())]),
                    "alert": "secret-alert-text",
                ]
            ).status == 202)
        try await awaitEvent("1 notification accepted by the mock") { [mock] in await mock.waitForAccepted(count: 1) }
        #expect(server.stop(SIGTERM) == 0)

        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        #expect(log.contains("http.request") || log.contains("push.enqueued"), "the log has lines to check")
        for secret in [apiKey, wrongKey, password, "secret-alert-text"] {
            #expect(!log.contains(secret), "'\(secret)' must not be logged")
        }
    }
}
