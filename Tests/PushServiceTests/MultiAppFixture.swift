import APNSMock
import Foundation
import JSON
import PushTLS
import PushTLSTesting
import TestSupport

@testable import PushService

/// push-server started as the program starts it (configuration file, `launch`) with several apps, each
/// with its own mock APNs: `dogs` signs in with a universal certificate (`com.example.dogs` and
/// `.voip`), `walks` with a `.p8` token key, and optionally `cats`, whose certificate its mock rejects
/// (issued by another CA than the one the mock trusts).
struct MultiAppFixture {
    static let dogs = "com.example.dogs"
    static let walks = "com.example.walks"
    static let cats = "com.example.cats"

    let server: PushServer
    let client: TestHTTPClient
    let dogsMock: MockAPNSServer
    let walksMock: MockAPNSServer
    let catsMock: MockAPNSServer?
    let directory: String
    /// The dogs app's `.p12` and its password (a reload test renews it).
    let dogsP12Path: String
    /// The authority the dogs mock trusts.
    let dogsAuthority: TestCertificateAuthority
    /// The SHA-256 fingerprint of the dogs app's first certificate (the one in `dogsP12Path` at start).
    let dogsFingerprint: String
    /// The dogs mock's channel management listener (`channels: true`), the dogs app's `channel_port`.
    var dogsChannels: MockAPNSChannelServer? = nil

    static func start(
        withFailingApp: Bool = false, latency: MockLatency = .none, maxInFlight: Int = 1_000, waitTimeout: Double = 120,
        channels: Bool = false
    ) async throws -> MultiAppFixture {
        let directory = try StartupCheckTests.scratch()
        let dogsAuthority = try TestCertificateAuthority()
        var (dogsConfiguration, dogsCredential) = try MockAPNSServer.makeForTesting(
            bundleID: dogs, topics: [dogs, dogs + ".voip"], authority: dogsAuthority)
        dogsConfiguration.latency = latency
        let dogsMock = try MockAPNSServer(configuration: dogsConfiguration)
        let dogsP12 = directory + "/dogs.p12"
        try Data(try dogsCredential.pkcs12(password: "dogs-pw")).write(to: URL(fileURLWithPath: dogsP12))
        try dogsMock.credentials.caPEM.write(toFile: directory + "/dogs-ca.pem", atomically: true, encoding: .utf8)

        let token = try MockAPNSServer.makeForTokenTesting(topics: [walks])
        let walksMock = try MockAPNSServer(configuration: token.configuration)
        try token.signingKey.pkcs8PEM.write(toFile: directory + "/walks.p8", atomically: true, encoding: .utf8)
        try walksMock.credentials.caPEM.write(toFile: directory + "/walks-ca.pem", atomically: true, encoding: .utf8)

        let dogsChannels = channels ? try dogsMock.startChannelServer(host: "127.0.0.1") : nil
        let channelPort = dogsChannels.map { #", "channel_port": \#($0.port)"# } ?? ""
        var apps = [
            #"{"name": "dogs", "topic": "\#(dogs)", "p12": "\#(dogsP12)", "password": "dogs-pw", "host": "127.0.0.1", "port": \#(dogsMock.port), "ca": "\#(directory)/dogs-ca.pem"\#(channelPort)}"#,
            #"{"name": "walks", "topic": "\#(walks)", "p8": "\#(directory)/walks.p8", "key_id": "\#(token.keyID)", "team_id": "\#(token.teamID)", "host": "127.0.0.1", "port": \#(walksMock.port), "ca": "\#(directory)/walks-ca.pem", "max_in_flight": 100}"#,
        ]
        var catsMock: MockAPNSServer?
        if withFailingApp {
            let (catsConfiguration, _) = try MockAPNSServer.makeForTesting(bundleID: cats)
            let mock = try MockAPNSServer(configuration: catsConfiguration)
            // A certificate for the right bundle, from an authority the mock does not trust: the handshake fails.
            let stranger = try TestCertificateAuthority().issueClientCertificate(bundleID: cats)
            try Data(try stranger.pkcs12(password: "cats-pw")).write(to: URL(fileURLWithPath: directory + "/cats.p12"))
            try mock.credentials.caPEM.write(toFile: directory + "/cats-ca.pem", atomically: true, encoding: .utf8)
            apps.append(
                #"{"name": "cats", "topic": "\#(cats)", "p12": "\#(directory)/cats.p12", "password": "cats-pw", "host": "127.0.0.1", "port": \#(mock.port), "ca": "\#(directory)/cats-ca.pem"}"#
            )
            catsMock = mock
        }
        let file = directory + "/push-server.json"
        let outbox = #""outbox": {"retry_base_delay_s": 0.05, "max_in_flight": \#(maxInFlight)}, "wait_timeout_s": \#(waitTimeout)"#
        try #"{"apps": [\#(apps.joined(separator: ", "))], \#(outbox)}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        var configuration = try PushServiceConfiguration.load(
            arguments: [
                "--config", file, "--data-dir", directory + "/data",
                "--api-key-file", try SecretFiles.write(ServiceHarness.apiKey, to: directory + "/api-key"),
                "--port", "0", "--log-level", "error",
            ], environment: [:])
        let launched = try await PushServerLauncher.launch(&configuration)
        return MultiAppFixture(
            server: launched.server, client: TestHTTPClient(port: launched.server.port, apiKey: ServiceHarness.apiKey),
            dogsMock: dogsMock, walksMock: walksMock, catsMock: catsMock, directory: directory, dogsP12Path: dogsP12,
            dogsAuthority: dogsAuthority, dogsFingerprint: try dogsCredential.certificate().sha256Fingerprint, dogsChannels: dogsChannels)
    }

    func stop() async {
        await server.shutdown(deadline: .seconds(2))
        dogsChannels?.stop()
        dogsMock.stop()
        walksMock.stop()
        catsMock?.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Registers a development device for `topic`; returns its token.
    func device(_ user: String, topic: String) async throws -> String {
        let token = ServiceHarness.randomToken()
        let response = try await client.send(
            "POST", "/v1/devices",
            json: ["token": .string(token), "user_id": .string(user), "topic": .string(topic), "environment": "development"])
        precondition(response.status == 201, "POST device: \(response.status)")
        return token
    }

    /// The value of the Prometheus series `series` (name with labels, exactly as exposed), or nil.
    func metric(_ series: String) async throws -> Double? {
        let text = String(decoding: try await client.send("GET", "/metrics").body, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }
}
