import APNSCore
import PushTLS

/// Decides who sent a request and which topics it may use: the seam between transport identity and
/// the topic rules. The certificate authenticator is the default; token auth (JWT) will be a second
/// implementation (reading `authorization`, keeping the connection's team in `userInfo`).
public protocol MockAPNSAuthenticator: Sendable {
    /// Called on the server loop's thread after the method, path, token, apns-id and duplicate-header rules.
    func authenticate(_ request: MockAPNSRequest, on connection: MockAPNSConnectionContext) -> MockAPNSAuthentication
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
/// `@unchecked Sendable`: created and used only on the server loop's thread.
public final class MockAPNSConnectionContext: @unchecked Sendable {
    /// The connection's id (as in records).
    public let id: Int
    /// The verified client certificate, if one was presented.
    public let clientCertificate: TLSCertificate?
    /// The gateway the server pretends to be.
    public let environment: MockAPNSServer.Environment
    /// Free per-connection state for authenticators (for example the team of the first valid token).
    public var userInfo: [String: String] = [:]

    /// A context with the given facts.
    public init(id: Int, clientCertificate: TLSCertificate?, environment: MockAPNSServer.Environment) {
        self.id = id
        self.clientCertificate = clientCertificate
        self.environment = environment
    }
}
