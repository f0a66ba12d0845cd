import APNSCore
import APNSMock
import Foundation
import PushHTTP
import PushHTTP2
import PushTLSTesting

@testable import APNS

/// A broadcast-ready app: the bundle ID's Live Activity topic next to the plain one.
let liveActivityTopics = [bundleID, bundleID + ".push-type.liveactivity"]

/// A mock APNs with its channel management listener, a push client on the push listener and a channel
/// management client on the management listener, both with the same credentials.
final class BroadcastFixture: Sendable {
    let server: MockAPNSServer
    let channelServer: MockAPNSChannelServer
    let push: APNSClient
    let channels: APNSChannelManagementClient

    /// A fixture over `configuration` (certificate or token auth) with client `credentials`.
    init(
        configuration: MockAPNSServer.Configuration, credentials: APNSClientConfiguration.Credentials,
        configureClient: (inout APNSClientConfiguration) -> Void = { _ in }
    ) throws {
        server = try MockAPNSServer(configuration: configuration)
        channelServer = try server.startChannelServer()
        let development = configuration.environment == .development
        var pushConfiguration = APNSClientConfiguration(
            credentials: credentials, environment: .custom(host: "127.0.0.1", port: server.port, isDevelopment: development),
            trustedCAPEM: server.credentials.caPEM)
        configureClient(&pushConfiguration)
        var channelConfiguration = pushConfiguration
        channelConfiguration.environment = .custom(host: "127.0.0.1", port: channelServer.port, isDevelopment: development)
        // One token for both clients, as one team's clients share it.
        if case .token(let token) = credentials {
            let provider = try APNSTokenProvider(credentials: token, clock: pushConfiguration.clock)
            pushConfiguration.credentials = .tokenProvider(provider)
            channelConfiguration.credentials = .tokenProvider(provider)
        }
        push = try APNSClient(configuration: pushConfiguration)
        channels = try APNSChannelManagementClient(configuration: channelConfiguration)
    }

    /// Certificate auth: a client certificate for `bundleID` with `topics` and `environments`.
    convenience init(
        topics: [String] = liveActivityTopics, environments: APNSCertificateEnvironments = .both,
        serverEnvironment: MockAPNSServer.Environment = .development,
        configureServer: (inout MockAPNSServer.Configuration) -> Void = { _ in },
        configureClient: (inout APNSClientConfiguration) -> Void = { _ in }
    ) throws {
        var (configuration, credential) = try MockAPNSServer.makeForTesting(
            bundleID: bundleID, topics: topics, environments: environments, environment: serverEnvironment)
        configureServer(&configuration)
        try self.init(configuration: configuration, credentials: .identity(try credential.identity()), configureClient: configureClient)
    }

    /// A Live Activity channel made through the management client.
    func makeChannel(_ policy: APNSMessageStoragePolicy = .noMessageStored) async throws -> APNSChannelID {
        try await channels.createChannel(bundleID: bundleID, storagePolicy: policy).channelID
    }

    func close() async {
        await channels.shutdown()
        await push.shutdown(deadline: .seconds(5))
        channelServer.stop()
        server.stop()
    }
}

/// Runs `body` with a certificate-auth fixture, closing it afterwards.
func withBroadcast<T: Sendable>(
    topics: [String] = liveActivityTopics, environments: APNSCertificateEnvironments = .both,
    serverEnvironment: MockAPNSServer.Environment = .development,
    configureServer: (inout MockAPNSServer.Configuration) -> Void = { _ in },
    configureClient: (inout APNSClientConfiguration) -> Void = { _ in },
    _ body: (BroadcastFixture) async throws -> T
) async throws -> T {
    let fixture = try BroadcastFixture(
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

/// A Live Activity update body.
let liveActivityUpdate = Array(#"{"aps":{"timestamp":1685952000,"event":"update","content-state":{"km":1.2}}}"#.utf8)

/// A broadcast of `liveActivityUpdate` on `channel`.
func broadcast(
    _ channel: APNSChannelID, bundle: String = bundleID, expiration: APNSExpiration = .immediately, requestID: String? = nil,
    payload: [UInt8] = liveActivityUpdate
) -> APNSBroadcast {
    APNSBroadcast(bundleID: bundle, channelID: channel, expiration: expiration, requestID: requestID, payload: payload)
}

/// A valid channel id no mock ever handed out.
let unknownChannel = APNSChannelID("dHN0LXNyY2gtY2hubA==")

extension APNSChannelManagementClient {
    /// A management request as given (method, path under `/1/apps/`, headers, body), for the requests the
    /// typed calls never make (another method, a body without `push-type`, …).
    func raw(
        _ method: String, _ pathAfterApps: String, headers: [(name: String, value: String)] = [], body: String = ""
    ) async throws(APNSChannelManagementError) -> HTTPResponse {
        try await perform(
            HTTP2Request(
                method: method, authority: configuration.environment.host,
                path: APNSHeader.channelManagementPathPrefix + pathAfterApps, headers: headers, body: Array(body.utf8)))
    }
}

/// The rejection a management call ended with; nil when it succeeded or failed otherwise.
func refusal<T>(_ call: () async throws -> T) async -> APNSRejection? {
    do {
        _ = try await call()
        return nil
    } catch {
        return (error as? APNSChannelManagementError)?.rejection
    }
}
