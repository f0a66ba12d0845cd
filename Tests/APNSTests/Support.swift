import APNS
import APNSCore
import APNSMock
import Foundation
import PushSync
import PushTLSTesting

let bundleID = "com.example.sniffmeet"
let tokenA = try! DeviceToken(String(repeating: "ab", count: 32))
let tokenB = try! DeviceToken(String(repeating: "cd", count: 32))

/// A mock APNs server and an APNs client pointed at it; `close()` shuts both down.
final class ClientFixture: Sendable {
    let authority: TestCertificateAuthority
    let server: MockAPNSServer
    let credential: IssuedCredential
    let client: APNSClient
    let events: EventLog

    init(
        topics: [String] = [bundleID, bundleID + ".voip"], environments: APNSCertificateEnvironments = .both,
        serverEnvironment: MockAPNSServer.Environment = .development,
        configureServer: (inout MockAPNSServer.Configuration) -> Void = { _ in },
        configureClient: (inout APNSClientConfiguration) -> Void = { _ in }
    ) throws {
        authority = try TestCertificateAuthority()
        var (configuration, credential) = try MockAPNSServer.makeForTesting(
            bundleID: bundleID, topics: topics, environments: environments, environment: serverEnvironment, authority: authority)
        configureServer(&configuration)
        server = try MockAPNSServer(configuration: configuration)
        self.credential = credential
        events = EventLog()
        var clientConfiguration = APNSClientConfiguration(
            credentials: .identity(try credential.identity()),
            environment: .custom(host: "127.0.0.1", port: server.port, isDevelopment: serverEnvironment == .development),
            trustedCAPEM: server.credentials.caPEM)
        clientConfiguration.metrics = events
        configureClient(&clientConfiguration)
        client = try APNSClient(configuration: clientConfiguration)
    }

    func close() async {
        await client.shutdown(deadline: .seconds(5))
        server.stop()
    }
}

/// Runs `body` with a fresh fixture, closing it afterwards.
func withClient<T: Sendable>(
    topics: [String] = [bundleID, bundleID + ".voip"], environments: APNSCertificateEnvironments = .both,
    serverEnvironment: MockAPNSServer.Environment = .development,
    configureServer: (inout MockAPNSServer.Configuration) -> Void = { _ in },
    configureClient: (inout APNSClientConfiguration) -> Void = { _ in },
    _ body: (ClientFixture) async throws -> T
) async throws -> T {
    let fixture = try ClientFixture(
        topics: topics, environments: environments, serverEnvironment: serverEnvironment,
        configureServer: configureServer, configureClient: configureClient)
    do {
        let result = try await body(fixture)
        await fixture.close()
        return result
    } catch {
        await fixture.close()
        throw error
    }
}

/// Records client events for assertions.
final class EventLog: APNSClientMetrics {
    private let events = PThreadLock<[String]>([])
    func record(_ event: APNSClientEvent) {
        let name: String
        switch event {
        case .sent: name = "sent"
        case .accepted: name = "accepted"
        case .rejected: name = "rejected"
        case .resent: name = "resent"
        case .failed(let kind): name = "failed:\(kind.rawValue)"
        case .connectionOpened: name = "opened"
        case .connectionClosed: name = "closed"
        }
        events.withLock { $0.append(name) }
    }
    func count(_ name: String) -> Int { events.withLock { $0.filter { $0 == name }.count } }
}

/// An alert notification to `token`.
func alert(_ token: DeviceToken = tokenA, topic: String = bundleID, body: String = "Woof") -> APNSNotification {
    APNSNotification(token: token, topic: topic, payload: .alert(body))
}

/// Sends all notifications concurrently; results in order.
func sendAll(_ client: APNSClient, _ notifications: [APNSNotification]) async -> [Result<APNSOutcome, APNSTransportError>] {
    await withTaskGroup(of: (Int, Result<APNSOutcome, APNSTransportError>).self) { group in
        for (index, notification) in notifications.enumerated() {
            group.addTask {
                do { return (index, .success(try await client.send(notification))) } catch let error as APNSTransportError {
                    return (index, .failure(error))
                } catch {
                    return (index, .failure(APNSTransportError(.notSent, "\(error)")))
                }
            }
        }
        var results = [Result<APNSOutcome, APNSTransportError>?](repeating: nil, count: notifications.count)
        for await (index, result) in group { results[index] = result }
        return results.map { $0! }
    }
}

/// A token made from a number.
func token(_ number: Int) -> DeviceToken {
    try! DeviceToken(String(format: "%064x", number))
}
