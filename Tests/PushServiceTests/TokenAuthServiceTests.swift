import APNSCore
import APNSMock
import Foundation
import JSON
import PushService
import PushTLS
import TestSupport
import Testing

@Suite("push-server with token (.p8) authentication")
struct TokenAuthServiceTests {
    @Test("configured with a .p8 key, key id and team id, the service's pushes are accepted by a token-auth APNs")
    func tokenAuthEndToEnd() async throws {
        let directory = try StartupCheckTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let topic = ServiceHarness.topic
        let setup = try MockAPNSServer.makeForTokenTesting(topics: [topic])
        let mock = try MockAPNSServer(configuration: setup.configuration)
        defer { mock.stop() }
        let keyPath = directory + "/AuthKey_\(setup.keyID).p8"
        let caPath = directory + "/ca.pem"
        try setup.signingKey.pkcs8PEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        try mock.credentials.caPEM.write(toFile: caPath, atomically: true, encoding: .utf8)

        var configuration = PushServiceConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.apiKeys = [try APIKey(name: "test", secret: ServiceHarness.apiKey)]
        configuration.topic = topic
        configuration.apns.p8Path = keyPath
        configuration.apns.keyID = setup.keyID
        configuration.apns.teamID = setup.teamID
        configuration.apns.host = "127.0.0.1"
        configuration.apns.port = mock.port
        configuration.apns.caPath = caPath
        let server = try await PushServer.start(
            configuration: configuration,
            senders: try PushServerLauncher.makeSenders(for: configuration.apns),
            logger: .silent)
        let client = TestHTTPClient(port: server.port, apiKey: ServiceHarness.apiKey)
        let token = ServiceHarness.randomToken()
        let device = try await client.send(
            "POST", "/v1/devices",
            json: [
                "token": .string(token), "user_id": "rex", "environment": "development",
            ])
        #expect(device.status == 201)
        let push = try await client.send(
            "POST", "/v1/pushes?wait=true",
            json: [
                "tokens": .array([.string(token)]), "alert": ["title": "Walk", "body": "Rex is waiting"],
            ])
        #expect(push.status == 200)
        try await awaitEvent("1 notification accepted by the mock") { [mock] in await mock.waitForAccepted(count: 1) }
        let record = try #require(mock.records().first)
        #expect(record.token == token)
        #expect(record.headers.contains { $0.name == "authorization" && $0.value.hasPrefix("bearer ") })
        await server.shutdown(deadline: .seconds(5))
    }

    @Test("a .p8 without key id and team id, or a missing .p8, stops the start with exit code 78")
    func tokenConfigurationErrors() async throws {
        let directory = try StartupCheckTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let common = ["--data-dir", directory, "--api-key-file", try SecretFiles.write("k", to: directory + "/api-key")]
        #expect(
            await StartupCheckTests.run(
                common + [
                    "--apns-p8", directory + "/missing.p8", "--apns-key-id", "KEY123ABCD",
                    "--apns-team-id", "TEAM12345A",
                ]) == 78)
        try "not a key".write(toFile: directory + "/bad.p8", atomically: true, encoding: .utf8)
        #expect(await StartupCheckTests.run(common + ["--apns-p8", directory + "/bad.p8"]) == 78)
        #expect(
            await StartupCheckTests.run(
                common + [
                    "--apns-p8", directory + "/bad.p8", "--apns-key-id", "KEY123ABCD",
                    "--apns-team-id", "TEAM12345A",
                ]) == 78)
    }
}
