import APNS
import APNSCore
import APNSMock
import EmbeddedAPNS
import Foundation
import JSON
import PushTLS
import PushTLSTesting
import Testing

@testable import PushService

/// Live Activities need token authentication: the mock refuses them on a certificate connection as APNs
/// does, and the service refuses (422) a Live Activity for an app that has only a certificate.
@Suite("Live Activities: certificate or token")
struct LiveActivityCredentialTests {
    static let liveTopic = AppleExactLiveActivityTests.liveTopic

    @Test("certificate or token: the mock refuses a certificate's Live Activity push (TopicDisallowed) and takes a token's")
    func mockNeedsTokenForLiveActivities() async throws {
        let topic = ServiceHarness.topic
        let token = try DeviceToken(ServiceHarness.randomToken())
        let payload = Array(#"{"aps":{"timestamp":1685952000,"event":"update","content-state":{"km":1}}}"#.utf8)
        let notification = APNSNotification(token: token, topic: Self.liveTopic, pushType: .liveactivity, priority: .immediately, payload: payload)
        // A certificate that even lists the Live Activity topic.
        let (certificateConfiguration, credential) = try MockAPNSServer.makeForTesting(bundleID: topic, topics: [topic, Self.liveTopic])
        let certificateMock = try MockAPNSServer(configuration: certificateConfiguration)
        defer { certificateMock.stop() }
        let certificateClient = try APNSClient(
            configuration: APNSClientConfiguration(
                credentials: .identity(try credential.identity()),
                environment: .custom(host: "127.0.0.1", port: certificateMock.port, isDevelopment: true),
                trustedCAPEM: certificateMock.credentials.caPEM))
        let refused = try await certificateClient.send(notification)
        #expect(refused.rejection?.reason == .topicDisallowed, "\(refused)")
        var alert = notification
        alert.topic = topic
        alert.pushType = .alert
        #expect(try await certificateClient.send(alert).isAccepted)
        await certificateClient.shutdown()

        let setup = try MockAPNSServer.makeForTokenTesting(topics: [topic, Self.liveTopic])
        let tokenMock = try MockAPNSServer(configuration: setup.configuration)
        defer { tokenMock.stop() }
        let tokenClient = try APNSClient(
            configuration: APNSClientConfiguration(
                credentials: .token(try APNSTokenCredentials(privateKeyPEM: setup.signingKey.pkcs8PEM, keyID: setup.keyID, teamID: setup.teamID)),
                environment: .custom(host: "127.0.0.1", port: tokenMock.port, isDevelopment: true), trustedCAPEM: tokenMock.credentials.caPEM))
        #expect(try await tokenClient.send(notification).isAccepted)
        await tokenClient.shutdown()
    }

    @Test("certificate or token: the embedded sniffmeet app starts Live Activities with its .p8; a certificate app's get 422 before anything is sent")
    func embeddedDefaultUsesToken() async throws {
        let directory = try StartupCheckTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = try PushServiceConfiguration.load(
            arguments: ["--embedded", "--data-dir", directory, "--port", "0", "--log-level", "error"], environment: [:])
        let launched = try await PushServerLauncher.launch(&configuration, embeddedAPNS: EmbeddedMockAPNS())
        let embedded = try #require(launched.embedded)
        defer { embedded.stop() }
        let client = TestHTTPClient(port: launched.server.port, apiKey: try #require(launched.generatedKey?.key))
        for (user, topic) in [("ana", EmbeddedMockAPNS.defaultTopic), ("bob", EmbeddedMockAPNS.tokenTopic)] {
            let body: [String: JSONValue] = [
                "token": .string(ServiceHarness.randomToken()), "user_id": .string(user), "environment": "development", "kind": "push_to_start",
                "attributes_type": "WalkAttributes", "topic": .string(topic),
            ]
            let registered = try await client.send("POST", "/v1/devices", json: .object(body))
            #expect(registered.status == 201, "\(registered.text)")
        }
        func start(_ user: String) async throws -> TestHTTPClient.Response {
            try await client.send(
                "POST", "/v1/live-activities?wait=true",
                json: [
                    "user_id": .string(user), "attributes-type": "WalkAttributes", "attributes": [:], "content-state": ["km": 0],
                    "alert": ["title": "Walk"],
                ])
        }
        let sniffmeet = try await start("ana")
        #expect(sniffmeet.status == 200 && sniffmeet.json?["notifications"]?[0]?["state"]?.stringValue == "accepted", "\(sniffmeet.text)")
        let dogwalk = try await start("bob")
        #expect(dogwalk.status == 422 && dogwalk.errorCode == "token_auth_required", "\(dogwalk.text)")
        await launched.server.shutdown()
    }
}
