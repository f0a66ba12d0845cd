import APNSCore
import APNSMock
import Foundation
public import PushService
import PushTLS
import PushTLSTesting

/// What `push-server --embedded` runs: two apps, each with an in-process mock APNs and freshly generated
/// credentials written to `<data-dir>/credentials`: the main app signs in with a token signing key
/// (`.p8`), as its walks' Live Activities need (docs/live-activities.md, "Certificate or token"), the
/// second (`com.example.dogwalk`) with a client certificate (`.p12`), as a server with several apps would. The `push-server` executable hands it to `PushServerLauncher`; tests use it the same way.
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
        let running = servers.running
        let view = ConsoleMockView(
            controls: running.map { ($0.name, $0.control.url) },
            records: {
                running.flatMap { app in
                    app.mock.records().map { record in
                        ConsoleMockRecord(
                            app: app.name, token: record.token, topic: record.topic, pushType: record.header("apns-push-type"),
                            status: record.rejection.map { $0.status } ?? 200, reason: record.rejection?.reason.rawValue, time: record.time)
                    }
                }.sorted { $0.time < $1.time }
            })
        return EmbeddedAPNSServers(
            apps: servers.apps,
            banner: [
                "push-server is running with an embedded mock APNs (credentials in \(dataDirectory)/credentials)",
                "mock control APIs: " + running.map { "\($0.name) \($0.control.url)" }.joined(separator: ", "),
                "for two apps: sniffmeet (\(servers.apps[0].topic), .p8 token key) and dogwalk (\(servers.apps[1].topic), .p12 certificate).",
            ], consoleView: view, stop: { servers.stop() })
    }
}

/// One app's running mock with its channel management listener (so channels and broadcasts work without an
/// Apple account) and its control API (docs/mock-control.yaml, on 127.0.0.1, so tests and people can program it).
struct EmbeddedMockApp: Sendable {
    /// The app's name in the configuration and the console.
    let name: String
    let mock: MockAPNSServer
    let channels: MockAPNSChannelServer
    let control: MockAPNSControlServer

    /// Starts `mock`'s channel management and control listeners on 127.0.0.1 (free ports).
    init(name: String, mock: MockAPNSServer) throws {
        self.name = name
        self.mock = mock
        channels = try mock.startChannelServer(host: "127.0.0.1")
        control = try mock.startControlServer(host: "127.0.0.1")
    }

    /// Stops the listeners, then the mock.
    func stop() {
        control.stop()
        channels.stop()
        mock.stop()
    }
}

/// The two running mocks (the main app's on a token key first, the second app's on a certificate) and the
/// apps' settings.
struct EmbeddedMockServers: Sendable {
    /// The apps' mocks, in the order of `apps`.
    let running: [EmbeddedMockApp]
    /// The generated certificate files (the second app's).
    let files: TestCredentialFiles
    /// The apps' settings.
    let apps: [PushServiceConfiguration.AppSettings]

    /// Generates credentials under `dataDirectory/credentials` and starts both mocks on 127.0.0.1 (free ports).
    init(dataDirectory: String, bundleID: String) throws {
        let directory = URL(fileURLWithPath: dataDirectory).appendingPathComponent("credentials").path
        let password = Self.randomHex(bytes: 16)
        let secondTopic = bundleID == EmbeddedMockAPNS.tokenTopic ? EmbeddedMockAPNS.tokenTopic + ".second" : EmbeddedMockAPNS.tokenTopic
        files = try TestCredentialFiles.write(to: directory, bundleID: secondTopic, password: password)
        var configuration = try MockAPNSServer.Configuration(credentialFiles: files)
        configuration.environment = .development
        // The embedded mocks run as long as the service: keep their memory flat.
        configuration.maxRecords = 100
        let certificateMock = try EmbeddedMockApp(name: "dogwalk", mock: try MockAPNSServer(configuration: configuration))
        // The main app's key may push to its bundle id and every push type's topic of it.
        var topics = [bundleID]
        for type in PushType.all where !topics.contains(type.topic(forBundleID: bundleID)) {
            topics.append(type.topic(forBundleID: bundleID))
        }
        var token = try MockAPNSServer.makeForTokenTesting(topics: topics)
        token.configuration.maxRecords = 100
        let tokenMock = try EmbeddedMockApp(name: "sniffmeet", mock: try MockAPNSServer(configuration: token.configuration))
        running = [tokenMock, certificateMock]
        let keyPath = URL(fileURLWithPath: directory).appendingPathComponent("AuthKey_\(token.keyID).p8").path
        let tokenCAPath = URL(fileURLWithPath: directory).appendingPathComponent("token-ca.pem").path
        guard
            FileManager.default.createFile(
                atPath: keyPath, contents: Data(token.signingKey.pkcs8PEM.utf8), attributes: [.posixPermissions: 0o600]),
            FileManager.default.createFile(atPath: tokenCAPath, contents: Data(tokenMock.mock.credentials.caPEM.utf8))
        else {
            throw ConfigurationError("cannot write the embedded token credentials in \(directory)")
        }

        var main = PushServiceConfiguration.AppSettings(topic: bundleID, name: tokenMock.name)
        main.p8Path = keyPath
        main.keyID = token.keyID
        main.teamID = token.teamID
        main.host = "127.0.0.1"
        main.port = tokenMock.mock.port
        main.channelPort = tokenMock.channels.port
        main.caPath = tokenCAPath
        var second = PushServiceConfiguration.AppSettings(topic: secondTopic, name: certificateMock.name)
        second.p12Path = files.clientP12Path
        second.password = files.password
        second.host = "127.0.0.1"
        second.port = certificateMock.mock.port
        second.channelPort = certificateMock.channels.port
        second.caPath = files.caCertificatePath
        apps = [main, second]
    }

    /// Stops both mocks and their channel management listeners.
    func stop() {
        for app in running { app.stop() }
    }

    /// `bytes` random bytes as lower-case hex (the generated .p12 password).
    private static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
