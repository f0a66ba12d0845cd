import APNS
import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushStore
import PushTLS
import PushTLSTesting

/// The service in-process with a mock APNs that also serves channel management: the push clients and
/// the channel managers of both environments reach the mock's two listeners with one `.p8` signing key
/// (token auth, which Live Activity pushes need; docs/live-activities.md).
struct ChannelHarness: Sendable {
    let server: PushServer
    let mock: MockAPNSServer
    let channelServer: MockAPNSChannelServer
    let client: TestHTTPClient
    let directory: String

    static func start(
        configure: @Sendable (inout PushServiceConfiguration) -> Void = { _ in },
        configureMock: (inout MockAPNSServer.Configuration) -> Void = { _ in }
    ) async throws -> ChannelHarness {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("push-channel-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let topic = ServiceHarness.topic
        var token = try MockAPNSServer.makeForTokenTesting(topics: [topic, topic + ".push-type.liveactivity"])
        configureMock(&token.configuration)
        let mock = try MockAPNSServer(configuration: token.configuration)
        let channelServer = try mock.startChannelServer(host: "127.0.0.1")
        let provider = try APNSTokenProvider(
            credentials: try APNSTokenCredentials(privateKeyPEM: token.signingKey.pkcs8PEM, keyID: token.keyID, teamID: token.teamID))
        func configuration(port: Int, development: Bool) -> APNSClientConfiguration {
            APNSClientConfiguration(
                credentials: .tokenProvider(provider),
                environment: .custom(host: "127.0.0.1", port: port, isDevelopment: development),
                trustedCAPEM: mock.credentials.caPEM)
        }
        let senders = PushSenders(apps: [
            PushApp(
                name: "default", topics: [], servesAnyTopic: true,
                production: try APNSClient(configuration: configuration(port: mock.port, development: false)),
                development: try APNSClient(configuration: configuration(port: mock.port, development: true)),
                productionChannels: try APNSChannelManagementClient(
                    configuration: configuration(port: channelServer.port, development: false)),
                developmentChannels: try APNSChannelManagementClient(
                    configuration: configuration(port: channelServer.port, development: true)))
        ])
        var service = PushServiceConfiguration()
        service.port = 0
        service.dataDirectory = directory
        service.apiKeys = [try APIKey(name: "test", secret: ServiceHarness.apiKey)]
        service.topic = topic
        service.retryBaseDelay = .milliseconds(20)
        service.retryMaxDelay = .milliseconds(200)
        service.retryTick = .milliseconds(50)
        service.waitTimeout = .seconds(120)
        configure(&service)
        let server = try await PushServer.start(configuration: service, senders: senders, logger: .silent)
        return ChannelHarness(
            server: server, mock: mock, channelServer: channelServer,
            client: TestHTTPClient(port: server.port, apiKey: ServiceHarness.apiKey), directory: directory)
    }

    /// Runs `body` with a started harness and always stops it afterwards (also when `body` throws).
    static func run(
        configure: @Sendable (inout PushServiceConfiguration) -> Void = { _ in },
        configureMock: (inout MockAPNSServer.Configuration) -> Void = { _ in },
        _ body: (ChannelHarness) async throws -> Void
    ) async throws {
        let harness = try await start(configure: configure, configureMock: configureMock)
        do {
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    func stop() async {
        await server.shutdown(deadline: .seconds(5))
        channelServer.stop()
        mock.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Creates a channel through the REST API; returns its id.
    func createChannel(policy: Int = 0, environment: String = "development") async throws -> String {
        let created = try await client.send(
            "POST", "/v1/channels",
            json: ["environment": .string(environment), "message_storage_policy": .int(Int64(policy))])
        precondition(created.status == 201, "POST /v1/channels: \(created.status) \(String(decoding: created.body, as: UTF8.self))")
        return created.json?["id"]?.stringValue ?? ""
    }

    /// `id` in the URL-safe alphabet, as a path segment.
    static func pathID(_ id: String) -> String {
        String(id.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }).replacingOccurrences(of: "=", with: "%3D")
    }

    /// A Live Activity update body.
    static func update(_ distance: Double) -> JSONValue {
        [
            "payload": [
                "aps": [
                    "timestamp": .int(Int64(Date().timeIntervalSince1970)), "event": "update",
                    "content-state": ["distance_km": .double(distance)],
                ]
            ]
        ]
    }
}
