import APNSCore
import APNSMock
import Foundation
public import PushService
import PushTLS
import PushTLSTesting

/// What `push-server --embedded` runs: two apps, each with an in-process mock APNs and freshly generated
/// credentials written to `<data-dir>/credentials`: the main app signs in with a client certificate
/// (`.p12`), the second (`com.example.dogwalk`) with a token signing key (`.p8`), as a server with several
/// apps would. The `push-server` executable hands it to `PushServerLauncher`; tests use it the same way.
public struct EmbeddedMockAPNS: EmbeddedAPNSProvider {
    /// The main app's bundle id when no topic is configured.
    public static let defaultTopic = "com.example.sniffmeet"
    /// The second app's bundle id.
    public static let tokenTopic = "com.example.dogwalk"

    /// The provider.
    public init() {}

    /// Generates the credentials under `dataDirectory/credentials` and starts both mocks on 127.0.0.1.
    public func start(dataDirectory: String, topic: String?) throws -> EmbeddedAPNSServers {
        let servers = try EmbeddedMockServers(dataDirectory: dataDirectory, bundleID: topic ?? Self.defaultTopic)
        let mocks = [("sniffmeet", servers.mock), ("dogwalk", servers.tokenMock)]
        let view = ConsoleMockView(
            controls: [("sniffmeet", servers.control.url), ("dogwalk", servers.tokenControl.url)],
            records: {
                mocks.flatMap { app, mock in
                    mock.records().map { record in
                        ConsoleMockRecord(
                            app: app, token: record.token, topic: record.topic, pushType: record.header("apns-push-type"),
                            status: record.rejection.map { $0.status } ?? 200, reason: record.rejection?.reason.rawValue, time: record.time)
                    }
                }.sorted { $0.time < $1.time }
            })
        return EmbeddedAPNSServers(
            apps: servers.apps,
            banner: [
                "push-server is running with an embedded mock APNs (credentials in \(dataDirectory)/credentials)",
                "mock control APIs: sniffmeet \(servers.control.url), dogwalk \(servers.tokenControl.url)",
                "for two apps: sniffmeet (\(servers.apps[0].topic), .p12 certificate) and dogwalk (\(servers.apps[1].topic), .p8 token key).",
            ], consoleView: view, stop: { servers.stop() })
    }
}

/// The two running mocks, their channel management listeners and the apps' settings.
struct EmbeddedMockServers: Sendable {
    /// The certificate app's mock.
    let mock: MockAPNSServer
    /// The token app's mock.
    let tokenMock: MockAPNSServer
    /// The mocks' channel management listeners, so channels and broadcasts work without an Apple account.
    let channels: MockAPNSChannelServer
    let tokenChannels: MockAPNSChannelServer
    /// The mocks' control APIs (docs/mock-control.yaml) on 127.0.0.1, so tests and people can program them.
    let control: MockAPNSControlServer
    let tokenControl: MockAPNSControlServer
    /// The generated certificate files.
    let files: TestCredentialFiles
    /// The apps' settings.
    let apps: [PushServiceConfiguration.AppSettings]

    /// Generates credentials under `dataDirectory/credentials` and starts both mocks on 127.0.0.1 (free ports).
    init(dataDirectory: String, bundleID: String) throws {
        let directory = URL(fileURLWithPath: dataDirectory).appendingPathComponent("credentials").path
        let password = Self.randomHex(bytes: 16)
        files = try TestCredentialFiles.write(to: directory, bundleID: bundleID, password: password)
        var configuration = try MockAPNSServer.Configuration(credentialFiles: files)
        configuration.environment = .development
        // The embedded mocks run as long as the service: keep their memory flat.
        configuration.maxRecords = 100
        mock = try MockAPNSServer(configuration: configuration)
        let tokenTopic = bundleID == EmbeddedMockAPNS.tokenTopic ? EmbeddedMockAPNS.tokenTopic + ".second" : EmbeddedMockAPNS.tokenTopic
        var token = try MockAPNSServer.makeForTokenTesting(topics: [tokenTopic])
        token.configuration.maxRecords = 100
        tokenMock = try MockAPNSServer(configuration: token.configuration)
        channels = try mock.startChannelServer(host: "127.0.0.1")
        tokenChannels = try tokenMock.startChannelServer(host: "127.0.0.1")
        control = try mock.startControlServer(host: "127.0.0.1")
        tokenControl = try tokenMock.startControlServer(host: "127.0.0.1")
        let keyPath = URL(fileURLWithPath: directory).appendingPathComponent("AuthKey_\(token.keyID).p8").path
        let tokenCAPath = URL(fileURLWithPath: directory).appendingPathComponent("token-ca.pem").path
        guard
            FileManager.default.createFile(
                atPath: keyPath, contents: Data(token.signingKey.pkcs8PEM.utf8), attributes: [.posixPermissions: 0o600]),
            FileManager.default.createFile(atPath: tokenCAPath, contents: Data(tokenMock.credentials.caPEM.utf8))
        else {
            throw ConfigurationError("cannot write the embedded token credentials in \(directory)")
        }

        var main = PushServiceConfiguration.AppSettings(topic: bundleID, name: "sniffmeet")
        main.p12Path = files.clientP12Path
        main.password = files.password
        main.host = "127.0.0.1"
        main.port = mock.port
        main.channelPort = channels.port
        main.caPath = files.caCertificatePath
        var second = PushServiceConfiguration.AppSettings(topic: tokenTopic, name: "dogwalk")
        second.p8Path = keyPath
        second.keyID = token.keyID
        second.teamID = token.teamID
        second.host = "127.0.0.1"
        second.port = tokenMock.port
        second.channelPort = tokenChannels.port
        second.caPath = tokenCAPath
        apps = [main, second]
    }

    /// Stops both mocks and their channel management listeners.
    func stop() {
        control.stop()
        tokenControl.stop()
        channels.stop()
        tokenChannels.stop()
        mock.stop()
        tokenMock.stop()
    }

    /// `bytes` random bytes as lower-case hex (the generated .p12 password).
    private static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
