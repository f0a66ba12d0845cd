import APNSCore
import APNSMock
import Foundation
import JSON
import PushHTTP
import PushHTTP2
import PushIO
import PushSync
import PushTLS
import Testing

/// A settable clock for the mock's token rules.
final class MockTokenClock: Sendable {
    private let time = PThreadLock(Date(timeIntervalSince1970: 1_750_000_000))
    var read: @Sendable () -> Date { { [self] in time.withLock { $0 } } }
    var seconds: Int64 { Int64(read().timeIntervalSince1970) }
    func advance(minutes: Double) { time.withLock { $0 += minutes * 60 } }
}

/// A compact JWT with any header and claims, signed by `key`.
func signedJWT(_ header: JSONValue, _ claims: JSONValue, key: ES256PrivateKey) throws -> String {
    let input = Base64URL.encode(header.serialized()) + "." + Base64URL.encode(claims.serialized())
    return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
}

/// Apple's token shape for key `kid` and team `iss` issued at `iat`.
func appleJWT(kid: String = "KEY123ABCD", iss: String = "TEAM12345A", iat: Int64, key: ES256PrivateKey) throws -> String {
    try signedJWT(["alg": "ES256", "kid": .string(kid)], ["iss": .string(iss), "iat": .int(iat)], key: key)
}

/// A request to the bundle id carrying `jwt` (or no authorization).
func tokenRequest(_ jwt: String?, topic: String? = bundleID) -> MockAPNSRequest {
    var headers: [(name: String, value: String)] = []
    if let topic { headers.append((APNSHeader.topic, topic)) }
    if let jwt { headers.append((APNSHeader.authorization, "bearer " + jwt)) }
    return MockAPNSRequest(path: APNSHeader.devicePathPrefix + tokenA, headers: headers, payload: alertPayload)
}

@Suite("Mock APNs token authenticator rules")
struct MockAPNSTokenAuthenticatorTests {
    let clock = MockTokenClock()
    let key = try! ES256PrivateKey.generate()
    let otherTeamKey = try! ES256PrivateKey.generate()
    let authenticator: MockAPNSTokenAuthenticator

    init() throws {
        authenticator = MockAPNSTokenAuthenticator(clock: clock.read)
        try authenticator.registerSigningKey(
            publicKeyPEM: key.publicKeyPEM, keyID: "KEY123ABCD", teamID: "TEAM12345A",
            topics: [bundleID])
        try authenticator.registerSigningKey(
            publicKeyPEM: otherTeamKey.publicKeyPEM, keyID: "KEY999ZZZZ", teamID: "TEAM99999Z",
            topics: ["com.other.app"])
    }

    func connection() -> MockAPNSConnectionContext {
        MockAPNSConnectionContext(id: 1, clientCertificate: nil, environment: .development)
    }

    func reason(_ request: MockAPNSRequest, on connection: MockAPNSConnectionContext) -> APNSRejectionReason? {
        if case .rejected(let reason) = authenticator.authenticate(request, on: connection) { return reason }
        return nil
    }

    @Test("a valid token is authorized for the team's topics and marks the connection authenticated")
    func valid() throws {
        let connection = connection()
        let answer = authenticator.authenticate(tokenRequest(try appleJWT(iat: clock.seconds, key: key)), on: connection)
        #expect(answer == .authorized(MockAPNSTopicGrant(bundleID: nil, topics: [bundleID])))
        #expect(connection.isAuthenticated)
        #expect(authenticator.limitsStreamsUntilAuthenticated)
    }

    @Test("MissingProviderToken without authorization; InvalidProviderToken for every malformed or foreign token")
    func missingAndInvalid() throws {
        let now = clock.seconds
        #expect(reason(tokenRequest(nil), on: connection()) == .missingProviderToken)
        let invalid: [String] = [
            "not-a-jwt",
            "a.b",
            try appleJWT(kid: "UNKNOWN123", iat: now, key: key),  // unknown key id
            try appleJWT(iss: "TEAM99999Z", iat: now, key: key),  // team not the key's
            try appleJWT(iat: now, key: otherTeamKey),  // wrong signature
            try signedJWT(["alg": "HS256", "kid": "KEY123ABCD"], ["iss": "TEAM12345A", "iat": .int(now)], key: key),
            try signedJWT(["alg": "ES256", "kid": "KEY123ABCD"], ["iss": "TEAM12345A", "iat": "soon"], key: key),
            try signedJWT(["alg": "ES256"], ["iss": "TEAM12345A", "iat": .int(now)], key: key),
        ]
        for jwt in invalid {
            #expect(reason(tokenRequest(jwt), on: connection()) == .invalidProviderToken, "\(jwt)")
        }
        var request = tokenRequest(nil)
        request = MockAPNSRequest(path: request.path, headers: request.headers + [(APNSHeader.authorization, "Basic abc")])
        #expect(reason(request, on: connection()) == .invalidProviderToken)
    }

    @Test("what working clients send is accepted: iat as a string of digits, a typ header, extra claims; the rest still refused")
    func acceptedAsApple() throws {
        let now = clock.seconds
        let accepted: [String] = [
            // kalyke-apns 1.5.0 and APNSwift before its JWT fix: "iat" as a string.
            try signedJWT(["alg": "ES256", "kid": "KEY123ABCD"], ["iss": "TEAM12345A", "iat": .string(String(now))], key: key),
            // PyJWT's "typ" header and a "kid" claim.
            try signedJWT(
                ["alg": "ES256", "kid": "KEY123ABCD", "typ": "JWT"], ["iss": "TEAM12345A", "iat": .int(now), "kid": "KEY123ABCD"], key: key),
        ]
        for jwt in accepted {
            #expect(reason(tokenRequest(jwt), on: connection()) == nil, "\(jwt)")
        }
        let refused: [JSONValue] = ["", "-5", "17e8", " 1700000000", .string(String(now) + ".5"), .double(Double(now) + 0.5), .bool(true)]
        for iat in refused {
            let jwt = try signedJWT(["alg": "ES256", "kid": "KEY123ABCD"], ["iss": "TEAM12345A", "iat": iat], key: key)
            #expect(reason(tokenRequest(jwt), on: connection()) == .invalidProviderToken, "\(iat)")
        }
        // A string iat ages like a number one.
        let old = try signedJWT(["alg": "ES256", "kid": "KEY123ABCD"], ["iss": "TEAM12345A", "iat": .string(String(now - 3601))], key: key)
        #expect(reason(tokenRequest(old), on: connection()) == .expiredProviderToken)
    }

    @Test("one team per connection: another team's valid token is InvalidProviderToken")
    func oneTeamPerConnection() throws {
        let connection = connection()
        #expect(reason(tokenRequest(try appleJWT(iat: clock.seconds, key: key)), on: connection) == nil)
        let foreign = try appleJWT(kid: "KEY999ZZZZ", iss: "TEAM99999Z", iat: clock.seconds + 3600, key: otherTeamKey)
        #expect(reason(tokenRequest(foreign, topic: "com.other.app"), on: connection) == .invalidProviderToken)
        #expect(reason(tokenRequest(foreign, topic: "com.other.app"), on: self.connection()) == nil)
    }

    @Test("age: over an hour is ExpiredProviderToken, also for the connection's current token")
    func expired() throws {
        let connection = connection()
        #expect(reason(tokenRequest(try appleJWT(iat: clock.seconds - 3601, key: key)), on: connection) == .expiredProviderToken)
        let jwt = try appleJWT(iat: clock.seconds, key: key)
        #expect(reason(tokenRequest(jwt), on: connection) == nil)
        clock.advance(minutes: 60)
        #expect(reason(tokenRequest(jwt), on: connection) == nil)
        clock.advance(minutes: 0.1)
        #expect(reason(tokenRequest(jwt), on: connection) == .expiredProviderToken)
    }

    @Test("a different token under 20 minutes after the current one: TooManyProviderTokenUpdates; at 20 accepted")
    func tooFrequent() throws {
        let connection = connection()
        let first = try appleJWT(iat: clock.seconds, key: key)
        #expect(reason(tokenRequest(first), on: connection) == nil)
        let early = try appleJWT(iat: clock.seconds + 19 * 60, key: key)
        #expect(reason(tokenRequest(early), on: connection) == .tooManyProviderTokenUpdates)
        // The same iat signed again is a different token too.
        #expect(reason(tokenRequest(try appleJWT(iat: clock.seconds, key: key)), on: connection) == .tooManyProviderTokenUpdates)
        #expect(reason(tokenRequest(first), on: connection) == nil)
        #expect(reason(tokenRequest(try appleJWT(iat: clock.seconds + 20 * 60, key: key)), on: connection) == nil)
        // Another connection is judged on its own.
        #expect(reason(tokenRequest(early), on: self.connection()) == nil)
        #expect(authenticator.signatureVerifications == 5)  // the current token again is not re-verified
    }

    @Test("topics: MissingTopic without apns-topic; the grant gives BadTopic and TopicDisallowed")
    func topics() throws {
        let jwt = try appleJWT(iat: clock.seconds, key: key)
        #expect(reason(tokenRequest(jwt, topic: nil), on: connection()) == .missingTopic)
        guard case .authorized(let grant) = authenticator.authenticate(tokenRequest(jwt), on: connection()) else {
            Issue.record("not authorized")
            return
        }
        #expect(grant.rejection(for: "com.other.app") == .badTopic)
        #expect(grant.rejection(for: bundleID + ".voip") == .topicDisallowed)
        authenticator.revokeSigningKey(keyID: "KEY123ABCD")
        #expect(reason(tokenRequest(jwt), on: connection()) == .invalidProviderToken)
    }
}

@Suite("Mock APNs token server over TLS")
struct MockAPNSTokenServerTests {
    @Test("no client certificate needed; the connection starts at 1 stream and rises after the first valid token")
    func streamLimitRises() async throws {
        let clock = MockTokenClock()
        var setup = try MockAPNSServer.makeForTokenTesting(topics: [bundleID], clock: clock.read)
        setup.configuration.maxConcurrentStreams = 250
        let server = try MockAPNSServer(configuration: setup.configuration)
        defer { server.stop() }
        #expect(server.tokenAuthenticator === setup.authenticator)
        let tls = try TLSContext.client(TLSClientConfiguration(trust: server.credentials.trust))
        let connection = HTTP2ClientConnection(
            loop: clientLoop,
            configuration: .init(
                host: "127.0.0.1", port: server.port, tls: tls, serverName: "127.0.0.1"))
        let watcher = ConnectionWatcher()
        clientLoop.execute { connection.delegate = watcher }

        let missing = try await respond(connection, apnsRequest())
        #expect(missing.status == 403)
        #expect(text(missing.body).contains("MissingProviderToken"))
        #expect(try await onLoop(connection) { connection.streamLimit } == 1)

        let jwt = try appleJWT(kid: setup.keyID, iss: setup.teamID, iat: clock.seconds, key: setup.signingKey)
        let accepted = try await respond(connection, apnsRequest(extraHeaders: [(APNSHeader.authorization, "bearer " + jwt)]))
        #expect(accepted.status == 200)
        #expect(try await onLoop(connection) { connection.streamLimit } == 250)
        #expect(server.records().map(\.clientCertificateUID) == [nil, nil])

        clientLoop.execute { connection.close() }
        try await watcher.closed()
    }
}
