import APNS
import APNSCore
import APNSMock
import Foundation
import JSON
import PushSync
import PushTLS
import PushTLSTesting
import Testing

/// A settable wall clock for token tests: no real waiting.
final class TokenTestClock: Sendable {
    private let time: PThreadLock<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) { time = PThreadLock(start) }

    /// The clock as configurations take it.
    var read: @Sendable () -> Date { { [self] in time.withLock { $0 } } }

    func advance(minutes: Double) { time.withLock { $0 += minutes * 60 } }
}

/// A token-auth mock server (its own clock) and clients (sharing another clock) pointed at it.
final class TokenFixture: Sendable {
    let authority: TestCertificateAuthority
    let server: MockAPNSServer
    let authenticator: MockAPNSTokenAuthenticator
    let signingKey: ES256PrivateKey
    let keyID: String
    let teamID: String
    let serverClock = TokenTestClock()
    let clientClock = TokenTestClock()
    private let clients = PThreadLock<[APNSClient]>([])

    init(topics: [String] = [bundleID, bundleID + ".voip"], configureServer: (inout MockAPNSServer.Configuration) -> Void = { _ in }) throws {
        authority = try TestCertificateAuthority()
        var setup = try MockAPNSServer.makeForTokenTesting(topics: topics, clock: serverClock.read, authority: authority)
        configureServer(&setup.configuration)
        server = try MockAPNSServer(configuration: setup.configuration)
        authenticator = setup.authenticator
        signingKey = setup.signingKey
        keyID = setup.keyID
        teamID = setup.teamID
    }

    /// Token credentials for the registered key (or `key`/`keyID` instead).
    func credentials(key: ES256PrivateKey? = nil, keyID: String? = nil) throws -> APNSTokenCredentials {
        try APNSTokenCredentials(privateKeyPEM: (key ?? signingKey).pkcs8PEM, keyID: keyID ?? self.keyID, teamID: teamID)
    }

    /// A client on the client clock; shut down by `close()`.
    func client(
        _ credentials: APNSClientConfiguration.Credentials? = nil,
        configure: (inout APNSClientConfiguration) -> Void = { _ in }
    ) throws -> APNSClient {
        var configuration = APNSClientConfiguration(
            credentials: try credentials ?? .token(self.credentials()),
            environment: .custom(host: "127.0.0.1", port: server.port, isDevelopment: true),
            trustedCAPEM: server.credentials.caPEM)
        configuration.clock = clientClock.read
        configure(&configuration)
        let client = try APNSClient(configuration: configuration)
        clients.withLock { $0.append(client) }
        return client
    }

    func close() async {
        for client in clients.withLock({ $0 }) { await client.shutdown(deadline: .seconds(5)) }
        server.stop()
    }
}

func withTokenServer<T: Sendable>(
    topics: [String] = [bundleID, bundleID + ".voip"],
    configureServer: (inout MockAPNSServer.Configuration) -> Void = { _ in },
    _ body: (TokenFixture) async throws -> T
) async throws -> T {
    let fixture = try TokenFixture(topics: topics, configureServer: configureServer)
    do {
        let result = try await body(fixture)
        await fixture.close()
        return result
    } catch {
        await fixture.close()
        throw error
    }
}

/// The decoded header and claims of a compact JWT.
func decodeJWT(_ jwt: String) throws -> (header: JSONValue, claims: JSONValue, signature: [UInt8]) {
    let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    try #require(parts.count == 3)
    let header = try JSONValue.parse(try #require(Base64URL.decode(parts[0])))
    let claims = try JSONValue.parse(try #require(Base64URL.decode(parts[1])))
    return (header, claims, try #require(Base64URL.decode(parts[2])))
}

extension MockAPNSRecord {
    /// The JWT the request carried.
    var jwt: String? { header("authorization").map { String($0.dropFirst("bearer ".count)) } }
}

@Suite("Token-based (.p8) authentication through the client over TLS")
struct APNSTokenAuthTests {
    @Test("a valid token is accepted; TLS without a client certificate; JWT as Apple documents")
    func acceptedWithValidToken() async throws {
        try await withTokenServer { fixture in
            let client = try fixture.client()
            let outcome = try await client.send(alert())
            #expect(outcome.isAccepted)
            let record = try #require(fixture.server.records().first)
            #expect(record.clientCertificateUID == nil)
            #expect(record.header("authorization")?.hasPrefix("bearer ") == true)
            let jwt = try #require(record.jwt)
            let (header, claims, signature) = try decodeJWT(jwt)
            #expect(header == ["alg": "ES256", "kid": .string(fixture.keyID)])
            #expect(claims == ["iss": .string(fixture.teamID), "iat": .int(Int64(fixture.clientClock.read().timeIntervalSince1970))])
            #expect(signature.count == 64)
            let message = Array(jwt.split(separator: ".").prefix(2).joined(separator: ".").utf8)
            #expect(try fixture.signingKey.publicKey.verify(signature: signature, message: message))
            #expect(client.tokenProvider?.cachedToken?.jwt == jwt)
        }
    }

    @Test("no authorization header on a token connection: 403 MissingProviderToken")
    func missingProviderToken() async throws {
        try await withTokenServer { fixture in
            // A certificate client: the token server asks for no certificate, so none proves anything.
            let credential = try fixture.authority.issueClientCertificate(bundleID: bundleID, topics: [], environments: .both)
            let client = try fixture.client(.identity(try credential.identity()))
            let outcome = try await client.send(alert())
            #expect(outcome.rejection?.reason == .missingProviderToken)
            #expect(outcome.rejection?.status == 403)
            #expect(fixture.server.records().first?.header("authorization") == nil)
        }
    }

    @Test("unknown signature or key id: 403 InvalidProviderToken")
    func invalidProviderToken() async throws {
        try await withTokenServer { fixture in
            let wrongKey = try fixture.client(.token(try fixture.credentials(key: try ES256PrivateKey.generate())))
            #expect(try await wrongKey.send(alert()).rejection?.reason == .invalidProviderToken)
            let unknownKeyID = try fixture.client(.token(try fixture.credentials(keyID: "UNKNOWN123")))
            #expect(try await unknownKeyID.send(alert()).rejection?.reason == .invalidProviderToken)
            // InvalidProviderToken is not refreshed: one request each.
            #expect(fixture.server.records().count == 2)
        }
    }

    @Test("client clock 61 minutes behind: ExpiredProviderToken, one refresh and resend, then the outcome")
    func expiredProviderToken() async throws {
        try await withTokenServer { fixture in
            fixture.clientClock.advance(minutes: -61)
            let client = try fixture.client()
            let outcome = try await client.send(alert())
            #expect(outcome.rejection?.reason == .expiredProviderToken)
            #expect(outcome.rejection?.status == 403)
            let records = fixture.server.records()
            #expect(records.map { $0.rejection?.reason } == [.expiredProviderToken, .expiredProviderToken])
            #expect(records[0].jwt != records[1].jwt)
            #expect(client.tokenProvider?.tokensIssued == 2)
        }
    }

    @Test("403 ExpiredProviderToken for a token the client still trusts: one refresh, resend, accepted")
    func expiredThenRefreshedAndAccepted() async throws {
        try await withTokenServer { fixture in
            let client = try fixture.client()
            #expect(try await client.send(alert()).isAccepted)
            // APNs' clock says the token is 61 minutes old, ours says 40: APNs refuses, we refresh.
            fixture.serverClock.advance(minutes: 61)
            fixture.clientClock.advance(minutes: 40)
            let outcome = try await client.send(alert(tokenB))
            #expect(outcome.isAccepted)
            let records = fixture.server.records()
            #expect(records.map(\.isAccepted) == [true, false, true])
            #expect(records[1].rejection?.reason == .expiredProviderToken)
            #expect(records[1].jwt == records[0].jwt)
            #expect(records[2].jwt != records[0].jwt)
            #expect(client.tokenProvider?.tokensIssued == 2)
            #expect(fixture.server.counters().connections == 1)
        }
    }

    @Test("many sends refused as expired together cause a single refresh")
    func oneRefreshForManyExpired() async throws {
        try await withTokenServer { fixture in
            let client = try fixture.client()
            #expect(try await client.send(alert()).isAccepted)
            fixture.serverClock.advance(minutes: 61)
            fixture.clientClock.advance(minutes: 40)
            let results = await sendAll(client, (0..<50).map { alert(token($0)) })
            #expect(results.allSatisfy { (try? $0.get())?.isAccepted == true })
            #expect(client.tokenProvider?.tokensIssued == 2)
            #expect(Set(fixture.server.records().compactMap(\.jwt)).count == 2)
        }
    }

    @Test("a new token under 20 minutes after the previous one on the connection: 429 TooManyProviderTokenUpdates")
    func tooManyProviderTokenUpdates() async throws {
        try await withTokenServer { fixture in
            let client = try fixture.client()
            #expect(try await client.send(alert()).isAccepted)
            // APNs finds the token expired; the forced refresh is only 10 minutes younger: too soon.
            fixture.serverClock.advance(minutes: 61)
            fixture.clientClock.advance(minutes: 10)
            let outcome = try await client.send(alert())
            #expect(outcome.rejection?.reason == .tooManyProviderTokenUpdates)
            #expect(outcome.rejection?.status == 429)
            #expect(fixture.server.records().map { $0.rejection?.reason } == [nil, .expiredProviderToken, .tooManyProviderTokenUpdates])
        }
    }

    @Test("refresh schedule through the mock: same token at +19 min, a new one at +51, one connection")
    func refreshScheduleOverTheWire() async throws {
        try await withTokenServer { fixture in
            let client = try fixture.client()
            #expect(try await client.send(alert()).isAccepted)
            for clock in [fixture.clientClock, fixture.serverClock] { clock.advance(minutes: 19) }
            #expect(try await client.send(alert()).isAccepted)
            for clock in [fixture.clientClock, fixture.serverClock] { clock.advance(minutes: 32) }
            #expect(try await client.send(alert()).isAccepted)
            let tokens = fixture.server.records().compactMap(\.jwt)
            #expect(tokens.count == 3)
            #expect(tokens[0] == tokens[1])
            #expect(tokens[2] != tokens[1])
            #expect(client.tokenProvider?.tokensIssued == 2)
            #expect(fixture.server.counters().connections == 1)
            #expect(fixture.authenticator.signatureVerifications == 2)
        }
    }

    @Test("one connection starts at 1 stream and rises after the first valid token: 200 concurrent sends")
    func streamsRiseAfterFirstToken() async throws {
        // Answers wait 10 ms, so once the limit rises the queued sends are open together however fast the
        // mock is (answered at once, a loaded machine could see them one at a time).
        try await withTokenServer(configureServer: { $0.latency = .fixed(.milliseconds(10)) }) { fixture in
            let client = try fixture.client()
            let results = await sendAll(client, (0..<200).map { alert(token($0)) })
            #expect(results.allSatisfy { (try? $0.get())?.isAccepted == true })
            #expect(fixture.server.counters().connections == 1)
            #expect(fixture.server.maxObservedConcurrentStreams > 1)
            // The first token arrived alone on its connection.
            #expect(Array(fixture.authenticator.openStreamsAtFirstValidToken.values) == [1])
            #expect(fixture.authenticator.signatureVerifications == 1)
            #expect(client.tokenProvider?.tokensIssued == 1)
        }
    }

    @Test("topics per team: BadTopic for another app, TopicDisallowed for an unlisted suffix")
    func topicsPerTeam() async throws {
        try await withTokenServer(topics: [bundleID]) { fixture in
            let client = try fixture.client()
            #expect(try await client.send(alert(topic: "com.other.app")).rejection?.reason == .badTopic)
            let voip = APNSNotification(token: tokenA, topic: bundleID + ".voip", pushType: .voip, payload: .alert("Woof"))
            #expect(try await client.send(voip).rejection?.reason == .topicDisallowed)
            #expect(try await client.send(alert()).isAccepted)
        }
    }
}
