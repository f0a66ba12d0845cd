import APNSCore
public import Foundation
public import PushTLS
public import PushTLSTesting

extension MockAPNSServer {
    /// A token-auth test setup from one throw-away CA: a server configuration (certificate for localhost,
    /// 127.0.0.1 and ::1; no client certificates asked; a `MockAPNSTokenAuthenticator` reading `clock`)
    /// and a fresh signing key registered under `keyID` for `teamID` with `topics`. Clients trust
    /// `configuration.serverCAPEM` and sign with `signingKey.pkcs8PEM` (what a `.p8` file holds).
    public static func makeForTokenTesting(
        topics: [String], keyID: String = "KEY123ABCD", teamID: String = "TEAM12345A",
        environment: Environment = .development, clock: @escaping @Sendable () -> Date = Date.init,
        authority: TestCertificateAuthority? = nil
    ) throws -> (
        configuration: Configuration, authenticator: MockAPNSTokenAuthenticator,
        signingKey: ES256PrivateKey, keyID: String, teamID: String
    ) {
        let authority = try authority ?? TestCertificateAuthority()
        let server = try authority.issueServerCertificate()
        let authenticator = MockAPNSTokenAuthenticator(clock: clock)
        let signingKey = try ES256PrivateKey.generate()
        try authenticator.registerSigningKey(publicKeyPEM: signingKey.publicKeyPEM, keyID: keyID, teamID: teamID, topics: topics)
        var configuration = Configuration(serverIdentity: try server.identity(), clientCATrustPEM: nil)
        configuration.serverCAPEM = authority.certificatePEM
        configuration.environment = environment
        configuration.authenticator = authenticator
        return (configuration, authenticator, signingKey, keyID, teamID)
    }

    /// The token authenticator, when the server was configured with one.
    public var tokenAuthenticator: MockAPNSTokenAuthenticator? {
        core.authenticator as? MockAPNSTokenAuthenticator
    }
}
