import APNS
import APNSCore
import APNSMock
import Foundation
import PushService
import PushStore
import PushTLSTesting
import TestSupport

/// Several whole services in-process, each on 127.0.0.1:0, sharing one fresh database on the throwaway
/// PostgreSQL cluster and one in-process mock APNs: instances of one deployment.
struct ClusterHarness: Sendable {
    let servers: [PushServer]
    let clients: [TestHTTPClient]
    let mock: MockAPNSServer
    let databaseURL: String
    let directory: String

    /// Starts `instances` instances; `senders`, when given, serve every instance instead of APNs clients to the mock.
    static func start(
        instances: Int, mockTopics: [String] = [], configure: @Sendable (inout PushServiceConfiguration) -> Void = { _ in },
        configureMock: (inout MockAPNSServer.Configuration) -> Void = { _ in },
        senders given: PushSenders? = nil, databaseURL: String? = nil, logger: ServiceLogger = .silent
    ) async throws -> ClusterHarness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-cluster-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let url: String
        if let databaseURL { url = databaseURL } else { url = try await PostgresTestCluster.shared().createDatabase() }
        var (mockConfiguration, credential) = try MockAPNSServer.makeForTesting(bundleID: ServiceHarness.topic, topics: mockTopics)
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
        var servers: [PushServer] = []
        for index in 0..<instances {
            var configuration = PushServiceConfiguration()
            configuration.port = 0
            configuration.dataDirectory = directory
            configuration.databasePath = url
            configuration.databasePoolSize = 4
            configuration.instanceID = "instance-\(index + 1)"
            configuration.apiKeys = [try APIKey(name: "test", secret: ServiceHarness.apiKey)]
            configuration.topic = ServiceHarness.topic
            configuration.retryBaseDelay = .milliseconds(50)
            configuration.waitTimeout = .seconds(120)
            configure(&configuration)
            servers.append(
                try await PushServer.start(
                    configuration: configuration,
                    senders: try given ?? PushSenders(production: try sender(development: false), development: try sender(development: true)),
                    logger: logger))
        }
        return ClusterHarness(
            servers: servers, clients: servers.map { TestHTTPClient(port: $0.port, apiKey: ServiceHarness.apiKey) }, mock: mock,
            databaseURL: url, directory: directory)
    }

    /// The client of instance `index` modulo the number of instances (spreads requests round robin).
    func client(_ index: Int) -> TestHTTPClient { clients[index % clients.count] }

    /// Stops every instance (each finishes what it has in flight), then the mock.
    func stop() async {
        for server in servers { await server.shutdown(deadline: .seconds(10)) }
        mock.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `body` for 0..<count with at most `width` at once; returns the results in index order.
    static func concurrently<T: Sendable>(_ count: Int, width: Int = 32, _ body: @escaping @Sendable (Int) async throws -> T)
        async throws -> [T]
    {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            var results = [T?](repeating: nil, count: count)
            var next = 0
            while next < min(width, count) {
                let index = next
                group.addTask { (index, try await body(index)) }
                next += 1
            }
            while let (index, value) = try await group.next() {
                results[index] = value
                if next < count {
                    let index = next
                    group.addTask { (index, try await body(index)) }
                    next += 1
                }
            }
            return results.map { $0! }
        }
    }
}
