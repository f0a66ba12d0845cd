public import APNSCore
public import PushTLSTesting

extension MockAPNSServer {
    /// A whole test setup from one throw-away CA: a server configuration (certificate for localhost,
    /// 127.0.0.1 and ::1) and an APNs-style client credential (UID = `bundleID`, optional multi-topic
    /// extension, the given environment markers). Pass `authority` to issue more credentials later.
    public static func makeForTesting(
        bundleID: String, topics: [String] = [], environments: APNSCertificateEnvironments = .both,
        environment: Environment = .development, authority: TestCertificateAuthority? = nil
    ) throws -> (configuration: Configuration, client: IssuedCredential) {
        let authority = try authority ?? TestCertificateAuthority()
        let server = try authority.issueServerCertificate()
        let client = try authority.issueClientCertificate(bundleID: bundleID, topics: topics, environments: environments)
        var configuration = Configuration(serverIdentity: try server.identity(), clientCATrustPEM: authority.certificatePEM)
        configuration.serverCAPEM = authority.certificatePEM
        configuration.environment = environment
        return (configuration, client)
    }
}
