public import PushTLS

/// A certificate and its private key, both PEM, as issued by `TestCertificateAuthority`.
public struct IssuedCredential: Sendable {
    /// The certificate as PEM.
    public let certificatePEM: String
    /// The private key as unencrypted PKCS#8 PEM.
    public let privateKeyPEM: String

    /// Creates a credential from PEM text.
    public init(certificatePEM: String, privateKeyPEM: String) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// The parsed certificate.
    public func certificate() throws -> TLSCertificate {
        try TLSCertificate(pem: certificatePEM)
    }

    /// Certificate and key as a `TLSIdentity`.
    public func identity() throws -> TLSIdentity {
        try TLSIdentity(certificatePEM: certificatePEM, keyPEM: privateKeyPEM)
    }

    /// A .p12 of this credential. Modern: AES-256-CBC + PBKDF2 (OpenSSL 3's defaults); legacy:
    /// RC2-40 certificate bag and 3DES key bag, like old Keychain exports. `includePrivateKey: false`
    /// makes a certificate-only .p12 (for testing `.noPrivateKey`).
    public func pkcs12(password: String, legacy: Bool = false, includePrivateKey: Bool = true) throws -> [UInt8] {
        let certificate = try TLSCertificate(pem: certificatePEM)
        let key = includePrivateKey ? try PrivateKeyHandle(pem: privateKeyPEM) : nil
        return try PKCS12Handle.build(
            certificate: certificate.handle, privateKey: key, chain: [],
            password: password, friendlyName: certificate.commonName, legacy: legacy)
    }
}
