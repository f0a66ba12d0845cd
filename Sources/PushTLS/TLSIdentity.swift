internal import COpenSSL
public import Foundation

/// A certificate with its private key and any intermediate certificates: what a TLS peer presents.
///
/// Loading never rejects an expired certificate (callers decide); see `checkNotExpired(at:)`.
public final class TLSIdentity: Sendable {
    /// The leaf certificate.
    public let certificate: TLSCertificate
    /// Intermediate certificates sent after the leaf, in order.
    public let chain: [TLSCertificate]
    /// Where the identity came from (a path or a caller-given label), for messages.
    public let source: String
    /// The private key matching `certificate`.
    let privateKey: PrivateKeyHandle

    /// Pairs a certificate with its key; `.keyMismatch` when they do not belong together.
    init(certificate: TLSCertificate, privateKey: PrivateKeyHandle, chain: [TLSCertificate], source: String) throws {
        guard privateKey.matches(certificate.handle) else {
            throw TLSError(
                .keyMismatch, "the private key does not match the certificate in \(source)",
                function: "X509_check_private_key")
        }
        self.certificate = certificate
        self.privateKey = privateKey
        self.chain = chain
        self.source = source
    }

    /// Opens a PKCS#12 (.p12) file, legacy (RC2/3DES) or modern (AES/PBKDF2).
    public convenience init(p12Path: String, password: String) throws {
        OpenSSLRuntime.ensureInitialized()
        try self.init(p12Data: CredentialFile.readBytes(p12Path), password: password, source: p12Path)
    }

    /// Opens PKCS#12 bytes; `source` names them in error messages.
    public convenience init(p12Data: [UInt8], password: String, source: String) throws {
        OpenSSLRuntime.ensureInitialized()
        let contents = try PKCS12Handle(der: p12Data, source: source).open(password: password, source: source)
        // Without a key, OpenSSL files every certificate under the extra ones.
        guard let key = contents.privateKey else {
            if contents.certificate == nil && contents.chain.isEmpty {
                throw TLSError(.noCertificate, "no certificate or private key in \(source)")
            }
            throw TLSError(.noPrivateKey, "no private key in \(source)")
        }
        guard let certificate = contents.certificate else {
            throw TLSError(.noCertificate, "no certificate for the private key in \(source)")
        }
        try self.init(
            certificate: TLSCertificate(handle: certificate), privateKey: key,
            chain: contents.chain.map(TLSCertificate.init(handle:)), source: source)
    }

    /// Reads a PEM certificate file (leaf first, then any chain) and a PEM private key file.
    public convenience init(certificatePEMPath: String, keyPEMPath: String) throws {
        OpenSSLRuntime.ensureInitialized()
        let certificatePEM = try CredentialFile.readText(certificatePEMPath)
        let keyPEM = try CredentialFile.readText(keyPEMPath)
        try self.init(
            certificatePEM: certificatePEM, keyPEM: keyPEM,
            source: "\(certificatePEMPath) + \(keyPEMPath)")
    }

    /// Parses a PEM certificate (leaf first, then any chain) and an unencrypted PEM private key.
    public convenience init(certificatePEM: String, keyPEM: String) throws {
        OpenSSLRuntime.ensureInitialized()
        try self.init(certificatePEM: certificatePEM, keyPEM: keyPEM, source: "PEM")
    }

    private convenience init(certificatePEM: String, keyPEM: String, source: String) throws {
        let certificates: [TLSCertificate]
        do {
            certificates = try TLSCertificate.all(pem: certificatePEM)
        } catch let error as TLSError where error.kind == .invalidPEM {
            throw TLSError(.noCertificate, "no PEM certificate in \(source)")
        }
        let key: PrivateKeyHandle
        do {
            key = try PrivateKeyHandle(pem: keyPEM)
        } catch let error as TLSError where error.kind == .invalidPEM {
            throw TLSError(
                .noPrivateKey, "no unencrypted PEM private key in \(source)",
                function: error.function, openSSLErrors: error.openSSLErrors)
        }
        try self.init(
            certificate: certificates[0], privateKey: key,
            chain: Array(certificates.dropFirst()), source: source)
    }

    /// Throws `.expiredCertificate` when the certificate is not valid at `date`.
    public func checkNotExpired(at date: Date = Date()) throws {
        let formatter = ISO8601DateFormatter()
        if date > certificate.notAfter {
            throw TLSError(
                .expiredCertificate,
                "certificate in \(source) expired at \(formatter.string(from: certificate.notAfter))")
        }
        if date < certificate.notBefore {
            throw TLSError(
                .expiredCertificate,
                "certificate in \(source) is not valid before \(formatter.string(from: certificate.notBefore))")
        }
    }

    /// The private key as unencrypted PKCS#8 PEM.
    public func privateKeyPEM() throws -> String {
        try privateKey.privatePEM()
    }

    /// Exports this identity as PKCS#12; `legacy` uses RC2-40/3DES like old Keychain exports.
    public func pkcs12(password: String, legacy: Bool = false) throws -> [UInt8] {
        try PKCS12Handle.build(
            certificate: certificate.handle, privateKey: privateKey,
            chain: chain.map(\.handle), password: password,
            friendlyName: certificate.commonName, legacy: legacy)
    }
}
