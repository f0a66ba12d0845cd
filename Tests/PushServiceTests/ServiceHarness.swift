import APNS
import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushStore
import PushTLSTesting
import TestSupport

/// The whole service in-process on 127.0.0.1:0, talking to an in-process mock APNs.
struct ServiceHarness: Sendable {
    static let apiKey = "test-key-0123456789"
    static let topic = "com.example.sniffmeet"

    let server: PushServer
    let mock: MockAPNSServer
    let client: TestHTTPClient
    let directory: String

    static func start(
        logger: ServiceLogger = .silent,
        directory: String? = nil,
        configure: @Sendable (inout PushServiceConfiguration) -> Void = { _ in },
        configureMock: (inout MockAPNSServer.Configuration) -> Void = { _ in }
    ) async throws -> ServiceHarness {
        let directory =
            directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("push-service-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var (mockConfiguration, credential) = try MockAPNSServer.makeForTesting(bundleID: topic)
        configureMock(&mockConfiguration)
        let mock = try MockAPNSServer(configuration: mockConfiguration)
        let identity = try credential.identity()
        func sender(development: Bool) throws -> APNSClient {
            try APNSClient(
                configuration: APNSClientConfiguration(
                    credentials: .identity(identity),
                    environment: .custom(host: "127.0.0.1", port: mock.port, isDevelopment: development),
                    trustedCAPEM: mock.credentials.caPEM))
        }
        var configuration = PushServiceConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.apiKeys = [try APIKey(name: "test", secret: apiKey)]
        configuration.topic = topic
        configuration.retryBaseDelay = .milliseconds(50)
        // `?wait=true` answers once every notification is final; give a loaded machine time to get there.
        configuration.waitTimeout = .seconds(120)
        configure(&configuration)
        let server = try await PushServer.start(
            configuration: configuration,
            senders: PushSenders(production: try sender(development: false), development: try sender(development: true)),
            logger: logger)
        return ServiceHarness(
            server: server, mock: mock, client: TestHTTPClient(port: server.port, apiKey: apiKey),
            directory: directory)
    }

    func stop() async {
        await server.shutdown(deadline: .seconds(5))
        mock.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func randomToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Creates a user with a profile and one development device; returns the token.
    @discardableResult
    func addUser(_ id: String, dog: String = "Rex") async throws -> String {
        let put = try await client.send("PUT", "/v1/users/\(id)", json: ["name": .string(id.capitalized), "dog_name": .string(dog)])
        precondition(put.status == 201 || put.status == 200, "PUT user: \(put.status)")
        let token = Self.randomToken()
        let device = try await client.send(
            "POST", "/v1/devices",
            json: [
                "token": .string(token), "user_id": .string(id),
                "environment": "development",
            ])
        precondition(device.status == 201, "POST device: \(device.status)")
        return token
    }
}
