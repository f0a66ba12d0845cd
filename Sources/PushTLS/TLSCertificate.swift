internal import COpenSSL
public import Foundation

/// An immutable X.509 certificate with its subject and validity read out once; other extensions are read
/// by OID (`extensionValue(oid:)`).
public final class TLSCertificate: Sendable {
    /// The OpenSSL object, for contexts and identities (and, inside the package, test certificate issuers).
    package let handle: X509Handle

    /// The certificate as PEM text.
    public let pem: String
    /// The subject's UID (OID 0.9.2342.19200300.100.1.1); APNs certificates carry the bundle id here.
    public let subjectUID: String?
    /// The subject's common name.
    public let commonName: String?
    /// The subject in OpenSSL's one-line form ("/UID=…/CN=…"), for logs.
    public let subject: String
    /// Start of the validity period.
    public let notBefore: Date
    /// End of the validity period.
    public let notAfter: Date
    /// SHA-256 of the DER form, colon-separated upper-case hex.
    public let sha256Fingerprint: String

    /// Wraps a certificate handle and reads its fields.
    package init(handle: X509Handle) throws {
        self.handle = handle
        pem = try handle.pem()
        subjectUID = handle.subjectEntry(nid: NID_userId)
        commonName = handle.subjectEntry(nid: NID_commonName)
        subject = handle.subjectLine()
        (notBefore, notAfter) = handle.validity()
        sha256Fingerprint = handle.sha256Fingerprint()
    }

    /// Parses the first certificate in PEM text.
    public convenience init(pem: String) throws {
        OpenSSLRuntime.ensureInitialized()
        let bio = try MemoryBIO(text: pem)
        let raw = try OpenSSLCall.check(
            PEM_read_bio_X509(bio.raw, nil, nil, nil), "PEM_read_bio_X509",
            kind: .invalidPEM, "no PEM certificate found")
        try self.init(handle: X509Handle(taking: raw))
    }

    /// Reads the first certificate of a PEM file.
    public static func load(pemFile path: String) throws -> TLSCertificate {
        do {
            return try TLSCertificate(pem: CredentialFile.readText(path))
        } catch let error as TLSError where error.kind == .invalidPEM {
            throw TLSError(
                .invalidPEM, "no PEM certificate in \(path)", function: error.function,
                openSSLErrors: error.openSSLErrors)
        }
    }

    /// Every certificate in PEM text, in order (a chain or a CA bundle); throws if there is none.
    public static func all(pem: String) throws -> [TLSCertificate] {
        let bio = try MemoryBIO(text: pem)
        var certificates: [TLSCertificate] = []
        while let raw = PEM_read_bio_X509(bio.raw, nil, nil, nil) {
            certificates.append(try TLSCertificate(handle: X509Handle(taking: raw)))
        }
        // Reading past the last certificate leaves a "no start line" error behind.
        OpenSSLCall.clearErrors()
        guard !certificates.isEmpty else { throw TLSError(.invalidPEM, "no PEM certificate found") }
        return certificates
    }

    /// The value (the DER inside the extension's OCTET STRING) of the extension with the dotted `oid`, or nil
    /// when the certificate has no such extension (or `oid` is not a dotted OID).
    public func extensionValue(oid: String) -> [UInt8]? {
        handle.extensionValue(oid: oid)
    }

    /// True when `date` is after the end of the validity period.
    public func isExpired(at date: Date = Date()) -> Bool {
        date > notAfter
    }

    /// True when `date` lies within the validity period.
    public func isValid(at date: Date = Date()) -> Bool {
        date >= notBefore && date <= notAfter
    }
}
