import APNSCore
public import Foundation
import JSON
import PushSync
public import PushTLS

/// Makes and caches the provider token (an ES256 JWT) of one team: every connection of a client shares
/// it, so APNs sees one token per team that changes about every 50 minutes. Thread-safe.
///
/// Rules (Apple: refresh no more often than every 20 minutes and before 60):
/// - the first call signs a token; later calls reuse it until it is ``APNSTokenCredentials/refreshAfter``
///   old (clamped to 20…55 minutes), so it is never replaced sooner than 20 minutes on a schedule and
///   never used past an hour;
/// - ``refresh(replacing:)`` replaces it at once, whatever its age, when APNs answered 403
///   ExpiredProviderToken for it: APNs has stopped accepting that token (its clock disagrees with ours),
///   so keeping it can only fail, while a new one may succeed. Only the token APNs refused is replaced:
///   many sends refused together cause one refresh.
///
/// The compact token is `base64url({"alg":"ES256","kid":KEY}).base64url({"iat":SECONDS,"iss":TEAM}).base64url(r||s)`.
public final class APNSTokenProvider: Sendable {
    /// A signed token and when it was issued.
    public struct Token: Sendable, Hashable {
        /// The compact JWT.
        public let jwt: String
        /// `iat`, whole seconds.
        public let issuedAt: Date
        /// The `authorization` header value, `bearer <jwt>`: made once per token, as every request carries it.
        public let authorization: String

        init(jwt: String, issuedAt: Date) {
            self.jwt = jwt
            self.issuedAt = issuedAt
            authorization = APNSHeader.bearerPrefix + jwt
        }
    }

    private struct State {
        var token: Token?
        var issued = 0
    }

    /// The key id (`kid`).
    public let keyID: String
    /// The team id (`iss`).
    public let teamID: String
    /// How long a token is used before a new one is signed.
    public let refreshAfter: Duration
    private let key: ES256PrivateKey
    private let clock: @Sendable () -> Date
    private let state = PThreadLock(State())

    /// A provider for `credentials`, reading the time from `clock`.
    public init(credentials: APNSTokenCredentials, clock: @escaping @Sendable () -> Date = Date.init) throws {
        key = try ES256PrivateKey(pkcs8PEM: credentials.privateKeyPEM)
        keyID = credentials.keyID
        teamID = credentials.teamID
        refreshAfter = credentials.effectiveRefreshAfter
        self.clock = clock
    }

    /// The token to send now: the cached one, or a new one when there is none or it is `refreshAfter` old.
    public func currentToken() throws -> Token {
        let now = clock()
        return try state.withLock { state throws -> Token in
            if let token = state.token, now.timeIntervalSince(token.issuedAt) < refreshAfter / .seconds(1) { return token }
            return try issue(now: now, into: &state)
        }
    }

    /// Replaces `rejected` (a token APNs answered 403 ExpiredProviderToken for) with a new token, unless
    /// it was replaced already; returns the token to use now.
    public func refresh(replacing rejected: String) throws -> Token {
        let now = clock()
        return try state.withLock { state throws -> Token in
            if let token = state.token, token.jwt != rejected { return token }
            return try issue(now: now, into: &state)
        }
    }

    /// The cached token without refreshing it, if one was made.
    public var cachedToken: Token? { state.withLock { $0.token } }

    /// How many tokens were signed so far.
    public var tokensIssued: Int { state.withLock { $0.issued } }

    private func issue(now: Date, into state: inout State) throws -> Token {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let token = Token(
            jwt: try Self.sign(keyID: keyID, teamID: teamID, issuedAt: seconds, key: key),
            issuedAt: Date(timeIntervalSince1970: Double(seconds)))
        state.token = token
        state.issued += 1
        return token
    }

    /// A compact ES256 JWT with header `{"alg":"ES256","kid":keyID}` and claims `{"iss":teamID,"iat":issuedAt}`.
    public static func sign(keyID: String, teamID: String, issuedAt: Int64, key: ES256PrivateKey) throws -> String {
        let header: JSONValue = ["alg": "ES256", "kid": .string(keyID)]
        let claims: JSONValue = ["iss": .string(teamID), "iat": .int(issuedAt)]
        let signingInput = Base64URL.encode(header.serialized()) + "." + Base64URL.encode(claims.serialized())
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
