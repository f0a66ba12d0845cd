import APNSMock
import Foundation
import JSON
import PushChaos
import PushStore
import PushStoreSQL
import PushTLSTesting
import TestSupport
import Testing

/// `push-server` (the real binary, a child process) killed with SIGKILL while webhook requests are in flight.
@Suite("Webhook delivery survives SIGKILL")
struct WebhookCrashTests {
    @Test("Events in flight when push-server is killed are delivered after the restart; none is lost", .timeLimit(.minutes(3)))
    func killMidDelivery() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-webhook-crash-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try TestCredentialFiles.write(to: directory + "/creds", bundleID: "com.example.sniffmeet", password: "pw")
        let mock = try MockAPNSServer(configuration: try MockAPNSServer.Configuration(credentialFiles: files))
        defer { mock.stop() }
        // The receiver holds every request without an answer until the server has been killed.
        let receiver = try await WebhookReceiver.start(secret: WebhookDeliveryTests.secret, mode: "hang")
        defer { receiver.stop() }
        let config: JSONValue = [
            "webhooks": [
                [
                    "id": "crash", "url": .string("http://127.0.0.1:\(receiver.port)/events"),
                    "events": ["notification.rejected"], "secret": .string(WebhookDeliveryTests.secret),
                ]
            ],
            "webhook_delivery": ["poll_s": 0.05, "timeout_s": 120, "batch_size": 5, "concurrency": 2, "retry_initial_s": 0.1],
        ]
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(config.serialized()).write(to: URL(fileURLWithPath: directory + "/config.json"))
        let arguments = [
            "--config", directory + "/config.json", "--data-dir", directory + "/data", "--port", "0",
            "--api-key-file", try SecretFiles.write("crash-key", to: directory + "/api-key"),
            "--topic", "com.example.sniffmeet", "--apns-p12", files.clientP12Path, "--apns-password-file", files.clientP12PasswordPath,
            "--apns-host", "127.0.0.1", "--apns-port", "\(mock.port)", "--apns-ca", files.caCertificatePath,
            "--log-level", "error",
        ]
        let first = try await PushServerProcess.start(binary: BuiltServer.path, arguments: arguments)
        let client = TestHTTPClient(port: first.port, apiKey: "crash-key")
        let tokens = (0..<20).map { _ in ServiceHarness.randomToken() }
        for token in tokens { mock.unregisterToken(token, at: Date()) }
        let push = try await client.send(
            "POST", "/v1/pushes?wait=true",
            json: ["tokens": .array(tokens.map { .string($0) }), "alert": "hi", "environment": "development"])
        #expect(push.json?["counts"]?["rejected"]?.intValue == 20)
        // Two requests (the concurrency bound) of at most five events each are held by the receiver.
        #expect(await receiver.waitFor { $0.filter { $0.hasPrefix("HANG ") }.count == 2 })
        first.stop(SIGKILL)
        let held = receiver.lines.filter { $0.hasPrefix("HANG ") }.compactMap { Int($0.dropFirst(5)) }.reduce(0, +)
        #expect((2...10).contains(held))

        let store = try SQLiteDatabase(path: directory + "/data/push.sqlite", recoverInFlight: false)
        let queued = try await PushRepositories(database: store).webhooks.counts()
        #expect(queued[.inFlight] == held, "the kill caught the held batches in flight")
        #expect(queued[.pending] == 20 - held)

        await receiver.setMode("ok")
        let second = try await PushServerProcess.start(binary: BuiltServer.path, arguments: arguments)
        #expect(await receiver.waitFor { Set($0.filter { $0.hasPrefix("EVENT ") }.map { $0.split(separator: " ")[1] }).count == 20 })
        #expect(receiver.events.allSatisfy { $0.type == "notification.rejected" })
        #expect(second.stop(SIGTERM) == 0)
        let after = try await PushRepositories(database: try SQLiteDatabase(path: directory + "/data/push.sqlite")).webhooks
            .counts()
        #expect(after[.delivered] == 20)
    }
}
