public import APNSCore
public import PushTLS

/// Decides who sent a request and which topics it may use: the seam between transport identity and
/// the topic rules. The certificate authenticator is the default; `MockAPNSTokenAuthenticator` checks
/// provider tokens (JWT in `authorization`, the connection's team kept in `userInfo`).
public protocol MockAPNSAuthenticator: Sendable {
    /// Called on the server loop's thread after the method, path, token, apns-id and duplicate-header rules.
    func authenticate(_ request: MockAPNSRequest, on connection: MockAPNSConnectionContext) -> MockAPNSAuthentication

    /// True when connections start with MAX_CONCURRENT_STREAMS 1 and get the configured limit once the
    /// authenticator set ``MockAPNSConnectionContext/isAuthenticated`` (Apple does this for token auth).
    var limitsStreamsUntilAuthenticated: Bool { get }
}

extension MockAPNSAuthenticator {
    /// False: connections get the configured stream limit from the start.
    public var limitsStreamsUntilAuthenticated: Bool { false }
}

/// An authenticator's answer.
public enum MockAPNSAuthentication: Sendable, Hashable {
    /// The sender may push to the topics of this grant (checked next).
    case authorized(MockAPNSTopicGrant)
    /// Refuse with this reason (e.g. BadCertificateEnvironment, MissingProviderToken).
    case rejected(APNSRejectionReason)
}

/// What one connection's identity is, for authenticators.
///
/// Not `Sendable`: made and used on the server loop's thread only, by the connection's handler, which
/// checks that thread where it is entered.
public final class MockAPNSConnectionContext {
    /// The connection's id (as in records).
    public let id: Int
    /// The verified client certificate, if one was presented.
    public let clientCertificate: TLSCertificate?
    /// The gateway the server pretends to be.
    public let environment: MockAPNSServer.Environment
    /// Free per-connection state for authenticators (for example the team of the first valid token).
    public var userInfo: [String: String] = [:]
    /// Set by authenticators once the connection proved who it is (for token auth: its first valid
    /// token); the server then raises a stream limit that started at 1.
    public var isAuthenticated = false
    /// The most streams open at once on the connection so far (kept up to date by the server).
    public internal(set) var maxObservedOpenStreams = 0
    /// What the client certificate says (subject UID, topics, gateway markers), nil without one. Read off
    /// the certificate once per connection, which keeps its certificate: decoding the extensions by OID
    /// for every request was a tenth of the validating mock's time.
    public private(set) lazy var certificateInfo: APNSCertificateInfo? = clientCertificate.map {
        APNSCertificateInfo(subjectUID: $0.subjectUID, extensionValue: $0.extensionValue(oid:))
    }

    /// A context with the given facts.
    public init(id: Int, clientCertificate: TLSCertificate?, environment: MockAPNSServer.Environment) {
        self.id = id
        self.clientCertificate = clientCertificate
        self.environment = environment
    }
}
