import APNSMock
import Foundation
import PushTLS

/// The embedded default: an in-process mock APNs server with freshly generated credentials written to
/// `<data-dir>/credentials`, and the settings that point the APNs clients at it.
struct EmbeddedAPNS: Sendable {
    /// The running mock.
    let mock: MockAPNSServer
    /// The mock's channel management listener, so channels and broadcasts work without an Apple account.
    let channels: MockAPNSChannelServer
    /// The generated credential files.
    let files: TestCredentialFiles

    static let defaultTopic = "com.example.sniffmeet"

    /// Generates credentials under `dataDirectory/credentials` and starts the mock on 127.0.0.1 (free port).
    init(dataDirectory: String, bundleID: String) throws {
        let directory = URL(fileURLWithPath: dataDirectory).appendingPathComponent("credentials").path
        let password = APIKeyFile.randomHex(bytes: 16)
        files = try TestCredentialFiles.write(to: directory, bundleID: bundleID, password: password)
        var configuration = try MockAPNSServer.Configuration(credentialFiles: files)
        configuration.environment = .development
        // The embedded mock runs as long as the service: keep its memory flat.
        configuration.maxRecords = 100
        mock = try MockAPNSServer(configuration: configuration)
        channels = try mock.startChannelServer(host: "127.0.0.1")
    }

    /// Stops both listeners.
    func stop() {
        channels.stop()
        mock.stop()
    }

    /// `apns` settings that reach the mock with the generated client certificate.
    var settings: PushServiceConfiguration.APNSSettings {
        var settings = PushServiceConfiguration.APNSSettings()
        settings.p12Path = files.clientP12Path
        settings.password = files.password
        settings.host = "127.0.0.1"
        settings.port = mock.port
        settings.channelPort = channels.port
        settings.caPath = files.caCertificatePath
        return settings
    }
}

/// The API key file of the embedded mode: `<data-dir>/api-key`, created with a random key if missing.
enum APIKeyFile {
    static func loadOrCreate(dataDirectory: String) throws -> String {
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent("api-key").path
        if let data = FileManager.default.contents(atPath: path) {
            let key = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !key.isEmpty { return key }
        }
        let key = randomHex(bytes: 24)
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data((key + "\n").utf8),
                attributes: [.posixPermissions: 0o600])
        else {
            throw ConfigurationError("cannot write the API key file \(path)")
        }
        return key
    }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
