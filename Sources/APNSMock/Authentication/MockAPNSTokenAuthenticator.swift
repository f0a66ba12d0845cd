import APNSCore
public import Foundation
import JSON
import PushSync
import PushTLS

/// Token auth (Apple's provider tokens): every request carries `authorization: bearer <jwt>`, an ES256
/// JWT with header `{"alg":"ES256","kid":KEY}` and claims `{"iss":TEAM,"iat":SECONDS}`, signed with a
/// key registered here. Thread-safe. Checks, in order:
///
/// 1. a client certificate on the connection and a `certificates` fallback: certificate auth instead;
/// 2. no `authorization` header                                   → 403 MissingProviderToken;
/// 3. not `bearer <three base64url parts>`, JSON header/claims, `alg` ES256, string `kid` and `iss`,
///    `iat` an integer or a string of decimal digits; `kid` registered; `iss` its team; the signature valid
///    → else 403 InvalidProviderToken;
/// 4. the connection already used another team's token → 403 InvalidProviderToken (APNs keeps one team
///    per connection and answers a foreign team's token as an invalid token);
/// 5. `iat` more than an hour before the clock                    → 403 ExpiredProviderToken;
/// 6. a token other than the connection's current one, issued (`iat`) less than 20 minutes after it
///    → 429 TooManyProviderTokenUpdates (the connection keeps its current token);
/// 7. no `apns-topic` (token auth has no default topic)            → 400 MissingTopic;
///    the topic is granted to the team as for certificates (TopicDisallowed / BadTopic).
///
/// What Apple is known to accept, and so the mock too (each is a client that works against APNs):
/// - `iat` as a string of digits: APNSwift sent `"iat":"1700000000"` in production until its pull request
///   "Validate requests in APNSTestServer and fix JWT claim encoding" (kylebrowning/APNSwift #246), and
///   kalyke-apns 1.5.0 sends it so today; Apple's own broadcast page ("Sending broadcast push notification
///   requests to APNs") shows a token whose claims are `{ "iss": "C86NV9JX3D", "iat": "1459143580650" }`.
/// - claims beyond `iss` and `iat` (the same APNSwift versions put `kid` in the claims too) are ignored.
/// - a `typ` header (PyJWT adds `"typ":"JWT"`) is ignored: a report that APNs refused it turned out to be
///   Apple's token validator in the dashboard, not APNs (Fatal1ty/aioapns #45).
/// What Apple refuses, and so the mock too: an `alg` other than ES256, a token without `kid` or `iss`
/// ("Establishing a token-based connection to APNs"), a signature that is not JWS's 64-byte R‖S
/// (RFC 7518 §3.4), and a token older than an hour (ExpiredProviderToken, "Handling error responses from
/// Apple Push Notification service").
///
/// The first valid token sets the connection's team and marks it authenticated (the server then raises
/// its stream limit from 1); the connection's current token is checked for age only, not verified again.
/// A token whose `iat` lies in the future is accepted.
public final class MockAPNSTokenAuthenticator: MockAPNSAuthenticator {
    /// Apple's limit on a token's age.
    public static let maximumTokenAge: Duration = .seconds(3600)
    /// Apple's shortest interval between a connection's tokens.
    public static let minimumRefreshInterval: Duration = .seconds(20 * 60)

    /// `userInfo` keys of the connection's token state.
    static let teamKey = "apns.token.team"
    static let jwtKey = "apns.token.jwt"
    static let issuedAtKey = "apns.token.iat"

    private struct SigningKey {
        let teamID: String
        let publicKey: ES256PublicKey
    }

    private struct State {
        var keys: [String: SigningKey] = [:]
        var topicsByTeam: [String: [String]] = [:]
        var streamsAtFirstToken: [Int: Int] = [:]
        var verifications = 0
    }

    private let state = PThreadLock(State())
    private let clock: @Sendable () -> Date
    private let certificates: MockAPNSCertificateAuthenticator?

    /// An authenticator with no keys yet, reading the time from `clock`. With `certificates`, a
    /// connection that presented a client certificate is judged by it instead (pair it with the
    /// configuration's `clientCertificatePolicy = .request` to serve both kinds of client).
    public init(clock: @escaping @Sendable () -> Date = Date.init, certificates: MockAPNSCertificateAuthenticator? = nil) {
        self.clock = clock
        self.certificates = certificates
    }

    /// True: Apple allows one stream on a connection until its first valid token.
    public var limitsStreamsUntilAuthenticated: Bool { true }

    /// Accepts tokens signed by the key `publicKeyPEM` (the public half of a `.p8`) under `keyID` for
    /// `teamID`, and lets that team push to `topics` (added to the team's topics). Replaces an earlier
    /// key with the same id.
    public func registerSigningKey(publicKeyPEM: String, keyID: String, teamID: String, topics: [String]) throws {
        let key = try ES256PublicKey(pem: publicKeyPEM)
        state.withLock { state in
            state.keys[keyID] = SigningKey(teamID: teamID, publicKey: key)
            var teamTopics = state.topicsByTeam[teamID, default: []]
            for topic in topics where !teamTopics.contains(topic) { teamTopics.append(topic) }
            state.topicsByTeam[teamID] = teamTopics
        }
    }

    /// Forgets the key `keyID` (as revoking it at Apple): its tokens become InvalidProviderToken on new connections.
    public func revokeSigningKey(keyID: String) {
        state.withLock { _ = $0.keys.removeValue(forKey: keyID) }
    }

    /// Per connection id, the most streams open at once before its first valid token was seen (1 when the
    /// client honoured the initial limit).
    public var openStreamsAtFirstValidToken: [Int: Int] {
        state.withLock { $0.streamsAtFirstToken }
    }

    /// How many signatures were checked (a connection's current token is not checked again).
    public var signatureVerifications: Int {
        state.withLock { $0.verifications }
    }

    /// Applies the rules above.
    public func authenticate(_ request: MockAPNSRequest, on connection: MockAPNSConnectionContext) -> MockAPNSAuthentication {
        if let certificates, connection.clientCertificate != nil {
            let answer = certificates.authenticate(request, on: connection)
            if case .authorized = answer { connection.isAuthenticated = true }
            return answer
        }
        guard let header = request.header(APNSHeader.authorization) else { return .rejected(.missingProviderToken) }
        guard header.count > APNSHeader.bearerPrefix.count,
            header.prefix(APNSHeader.bearerPrefix.count).lowercased() == APNSHeader.bearerPrefix
        else {
            return .rejected(.invalidProviderToken)
        }
        let jwt = String(header.dropFirst(APNSHeader.bearerPrefix.count))
        let now = clock().timeIntervalSince1970

        if jwt == connection.userInfo[Self.jwtKey], let team = connection.userInfo[Self.teamKey],
            let issuedAt = connection.userInfo[Self.issuedAtKey].flatMap(Int64.init)
        {
            guard now - Double(issuedAt) <= Self.maximumTokenAge / .seconds(1) else { return .rejected(.expiredProviderToken) }
            return grant(team: team, request: request)
        }

        guard let token = Self.parse(jwt) else { return .rejected(.invalidProviderToken) }
        let key = state.withLock { state -> SigningKey? in
            state.verifications += 1
            return state.keys[token.keyID]
        }
        guard let key, key.teamID == token.teamID,
            key.publicKey.verify(signature: token.signature, message: token.signingInput)
        else {
            return .rejected(.invalidProviderToken)
        }
        if let team = connection.userInfo[Self.teamKey], team != token.teamID { return .rejected(.invalidProviderToken) }
        guard now - Double(token.issuedAt) <= Self.maximumTokenAge / .seconds(1) else { return .rejected(.expiredProviderToken) }
        if let previous = connection.userInfo[Self.issuedAtKey].flatMap(Int64.init),
            Double(token.issuedAt - previous) < Self.minimumRefreshInterval / .seconds(1)
        {
            return .rejected(.tooManyProviderTokenUpdates)
        }

        connection.userInfo[Self.teamKey] = token.teamID
        connection.userInfo[Self.jwtKey] = jwt
        connection.userInfo[Self.issuedAtKey] = String(token.issuedAt)
        if !connection.isAuthenticated {
            connection.isAuthenticated = true
            let streams = connection.maxObservedOpenStreams
            state.withLock { $0.streamsAtFirstToken[connection.id] = streams }
        }
        return grant(team: token.teamID, request: request)
    }

    private func grant(team: String, request: MockAPNSRequest) -> MockAPNSAuthentication {
        guard request.topic != nil else { return .rejected(.missingTopic) }
        let topics = state.withLock { $0.topicsByTeam[team] ?? [] }
        return .authorized(MockAPNSTopicGrant(bundleID: nil, topics: topics))
    }

    /// The parts of a well-formed token.
    struct ParsedToken {
        let keyID: String
        let teamID: String
        let issuedAt: Int64
        let signingInput: [UInt8]
        let signature: [UInt8]
    }

    /// `iat` as seconds: a JSON integer, or a string of 1–19 decimal digits (see the type's comment for
    /// why a string is accepted). Anything else (a fraction, a sign, an empty string) is nil.
    static func issuedAt(_ value: JSONValue?) -> Int64? {
        switch value {
        case .string(let text)?:
            guard (1...19).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int64(text)
        case let number?:
            return number.int64Value
        case nil:
            return nil
        }
    }

    /// Splits and decodes a compact JWT; nil unless it is an ES256 token with `kid`, `iss` and `iat`.
    static func parse(_ jwt: String) -> ParsedToken? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(String(parts[0])),
            let claimBytes = Base64URL.decode(String(parts[1])),
            let signature = Base64URL.decode(String(parts[2])), signature.count == 64,
            let header = try? JSONValue.parse(headerBytes),
            let claims = try? JSONValue.parse(claimBytes),
            header["alg"]?.stringValue == "ES256",
            let keyID = header["kid"]?.stringValue,
            let teamID = claims["iss"]?.stringValue,
            let issuedAt = issuedAt(claims["iat"])
        else { return nil }
        return ParsedToken(
            keyID: keyID, teamID: teamID, issuedAt: issuedAt,
            signingInput: Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8),
            signature: signature)
    }
}
