import APNSCore
import PushTLS

/// Certificate auth, the default: the verified client certificate must carry the server's environment
/// marker (else 403 BadCertificateEnvironment) and a subject UID (else 403 BadCertificate); its UID and
/// multi-topic extension make the topic grant. No certificate gives 403 MissingProviderToken.
public struct MockAPNSCertificateAuthenticator: MockAPNSAuthenticator {
    /// The authenticator.
    public init() {}

    /// Checks the connection's certificate.
    public func authenticate(_ request: MockAPNSRequest, on connection: MockAPNSConnectionContext) -> MockAPNSAuthentication {
        guard let info = connection.certificateInfo else { return .rejected(.missingProviderToken) }
        switch connection.environment {
        case .development where !info.supportsDevelopment,
            .production where !info.supportsProduction:
            return .rejected(.badCertificateEnvironment)
        default:
            break
        }
        guard let uid = info.subjectUID else { return .rejected(.badCertificate) }
        return .authorized(MockAPNSTopicGrant(bundleID: uid, topics: info.topics))
    }
}
