import APNSCore
import APNSMock
import Foundation
import JSON
import PushChaos
import PushStore
import PushStoreSQL
import PushTLSTesting
import TestSupport
import Testing

/// The `push-server` binary next to the test bundle (built by `swift build --build-tests`).
enum BuiltServer {
    static var path: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("push-server").path
    }
}

@Suite("push-server survives SIGKILL")
struct CrashRecoveryTests {
    @Test(
        "SIGKILL during a 10,000-notification load: every acknowledged notification reaches APNs, the outbox drains",
        .timeLimit(.minutes(3)))
    func killDuringLoad() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-crash-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try TestCredentialFiles.write(to: directory + "/creds", bundleID: "com.example.sniffmeet", password: "pw")
        var mockConfiguration = try MockAPNSServer.Configuration(credentialFiles: files)
        // Slow enough (at most 50 streams × 100/s each) that the kill lands while most of the load is queued.
        mockConfiguration.maxConcurrentStreams = 50
        mockConfiguration.latency = .fixed(.milliseconds(10))
        let mock = try MockAPNSServer(configuration: mockConfiguration)
        defer { mock.stop() }
        let arguments = [
            "--data-dir", directory + "/data", "--port", "0", "--api-key-file", try SecretFiles.write("crash-key", to: directory + "/api-key"),
            "--topic", "com.example.sniffmeet", "--apns-p12", files.clientP12Path, "--apns-password-file", files.clientP12PasswordPath,
            "--apns-host", "127.0.0.1", "--apns-port", "\(mock.port)", "--apns-ca", files.caCertificatePath,
            "--log-level", "error",
        ]

        let first = try await PushServerProcess.start(binary: BuiltServer.path, arguments: arguments)
        let client = TestHTTPClient(port: first.port, apiKey: "crash-key")
        let batches = (0..<20).map { _ in (0..<500).map { _ in ServiceHarness.randomToken() } }
        let killer = Task {
            try await awaitEvent("1,500 notifications accepted by the mock") { [mock] in await mock.waitForAccepted(count: 1_500) }
            first.stop(SIGKILL)
        }
        let acknowledged = await withTaskGroup(of: [String].self) { group in
            for batch in batches {
                group.addTask {
                    let body: JSONValue = [
                        "tokens": .array(batch.map { .string($0) }), "alert": "load",
                        "environment": "development",
                    ]
                    guard let response = try? await client.send("POST", "/v1/pushes", json: body),
                        (200..<300).contains(response.status)
                    else { return [] }
                    return batch
                }
            }
            var all: [String] = []
            for await tokens in group { all += tokens }
            return all
        }
        try await killer.value
        #expect(acknowledged.count >= 500, "some pushes were acknowledged before the kill")

        // What the killed run left behind: every row not yet final must be sent after the restart.
        let (total, finished) = try await {
            let store = try Self.outbox(directory + "/data/push.sqlite")
            let counts = try await store.counts()
            return (counts.values.reduce(0, +), counts[.accepted] ?? 0)
        }()
        #expect(total >= acknowledged.count)
        #expect(total - finished > 0, "the kill hit the load before it was delivered")

        let before = mock.counters().accepted
        let second = try await PushServerProcess.start(binary: BuiltServer.path, arguments: arguments)
        let remaining = before + (total - finished)
        try await awaitEvent("\(remaining) notifications accepted by the mock") { [mock] in await mock.waitForAccepted(count: remaining) }
        let delivered = Set(mock.records().filter(\.isAccepted).map(\.token))
        #expect(Set(acknowledged).subtracting(delivered).isEmpty, "every acknowledged notification reached the mock")
        #expect(second.stop(SIGTERM) == 0)

        let store = try Self.outbox(directory + "/data/push.sqlite")
        #expect(try await store.depth() == 0)
        #expect(try await store.counts()[.accepted] == total)
    }

    /// The outbox of a server's database, opened beside it without recovering anything.
    private static func outbox(_ path: String) throws -> SQLiteOutboxRepository {
        SQLiteOutboxRepository(database: try SQLiteDatabase(path: path, recoverInFlight: false))
    }
}
