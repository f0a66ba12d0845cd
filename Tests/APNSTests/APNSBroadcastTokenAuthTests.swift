import APNS
import APNSCore
import APNSMock
import Foundation
import PushTLS
import PushTLSTesting
import Testing

/// Which API a token-auth case goes through.
enum BroadcastAPI: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case management, broadcasts
    var testDescription: String { rawValue }

    /// One request through this API: the rejection it got, nil when it succeeded.
    func attempt(_ fixture: BroadcastFixture, channel: APNSChannelID) async throws -> APNSRejection? {
        switch self {
        case .management:
            return await refusal { try await fixture.channels.channel(channel, bundleID: bundleID) }
        case .broadcasts:
            let outcome = try await fixture.push.send(broadcast(channel))
            return outcome.rejection
        }
    }
}

/// A token-auth mock (its own clock) with its management listener, and clients on another clock.
func withTokenBroadcast<T: Sendable>(
    credentials: ((TokenFixtureKeys) throws -> APNSClientConfiguration.Credentials)? = nil,
    _ body: (BroadcastFixture, TokenTestClock, TokenTestClock) async throws -> T
) async throws -> T {
    let serverClock = TokenTestClock()
    let clientClock = TokenTestClock()
    let setup = try MockAPNSServer.makeForTokenTesting(topics: liveActivityTopics, clock: serverClock.read)
    let keys = TokenFixtureKeys(signingKey: setup.signingKey, keyID: setup.keyID, teamID: setup.teamID)
    let chosen = try credentials?(keys) ?? .token(try keys.credentials())
    let fixture = try BroadcastFixture(configuration: setup.configuration, credentials: chosen) { $0.clock = clientClock.read }
    do {
        let result = try await body(fixture, serverClock, clientClock)
        await fixture.close()
        return result
    } catch {
        await fixture.close()
        throw error
    }
}

/// The registered signing key of a token-auth mock.
struct TokenFixtureKeys {
    let signingKey: ES256PrivateKey
    let keyID: String
    let teamID: String

    func credentials(key: ES256PrivateKey? = nil) throws -> APNSTokenCredentials {
        try APNSTokenCredentials(privateKeyPEM: (key ?? signingKey).pkcs8PEM, keyID: keyID, teamID: teamID)
    }
}

@Suite("Broadcast and channel management with provider tokens (.p8)")
struct APNSBroadcastTokenAuthTests {
    @Test("one shared token: a channel is made, read and broadcast to")
    func accepted() async throws {
        try await withTokenBroadcast { fixture, _, _ in
            let channel = try await fixture.makeChannel()
            #expect(try await fixture.channels.channel(channel, bundleID: bundleID).storagePolicy == .noMessageStored)
            #expect(try await fixture.push.send(broadcast(channel)).isAccepted)
            #expect(fixture.server.broadcasts(channelID: channel).first?.header("authorization")?.hasPrefix("bearer ") == true)
        }
    }

    @Test("no token and no certificate: 403 MissingProviderToken", arguments: BroadcastAPI.allCases)
    func missing(_ api: BroadcastAPI) async throws {
        let authority = try TestCertificateAuthority()
        let identity = try authority.issueClientCertificate(bundleID: bundleID).identity()
        try await withTokenBroadcast(credentials: { _ in .identity(identity) }) { fixture, _, _ in
            let channel = try #require(fixture.server.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored)).id
            let rejection = try await api.attempt(fixture, channel: channel)
            #expect(rejection?.reason == .missingProviderToken)
            #expect(rejection?.status == 403)
        }
    }

    @Test("a token signed by another key: 403 InvalidProviderToken", arguments: BroadcastAPI.allCases)
    func invalid(_ api: BroadcastAPI) async throws {
        let stranger = try ES256PrivateKey.generate()
        try await withTokenBroadcast(credentials: { .token(try $0.credentials(key: stranger)) }) { fixture, _, _ in
            let channel = try #require(fixture.server.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored)).id
            let rejection = try await api.attempt(fixture, channel: channel)
            #expect(rejection?.reason == .invalidProviderToken)
            #expect(rejection?.status == 403)
        }
    }

    @Test("a token over an hour old by APNs' clock, even after the one refresh: 403 ExpiredProviderToken", arguments: BroadcastAPI.allCases)
    func expired(_ api: BroadcastAPI) async throws {
        try await withTokenBroadcast { fixture, serverClock, _ in
            let channel = try #require(fixture.server.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored)).id
            serverClock.advance(minutes: 120)
            let rejection = try await api.attempt(fixture, channel: channel)
            #expect(rejection?.reason == .expiredProviderToken)
            #expect(rejection?.status == 403)
        }
    }

    @Test("a refresh under 20 minutes after the connection's token: 429 TooManyProviderTokenUpdates", arguments: BroadcastAPI.allCases)
    func tooManyUpdates(_ api: BroadcastAPI) async throws {
        try await withTokenBroadcast { fixture, serverClock, clientClock in
            let channel = try #require(fixture.server.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored)).id
            let first = try await api.attempt(fixture, channel: channel)
            #expect(first == nil)
            serverClock.advance(minutes: 61)
            clientClock.advance(minutes: 10)
            let rejection = try await api.attempt(fixture, channel: channel)
            #expect(rejection?.reason == .tooManyProviderTokenUpdates)
            #expect(rejection?.status == 429)
        }
    }
}
