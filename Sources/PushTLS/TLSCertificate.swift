internal import COpenSSL
import Foundation

/// An immutable X.509 certificate with the facts an APNs service needs read out once.
public final class TLSCertificate: Sendable {
    /// The OpenSSL object, for contexts and identities inside this module.
    let handle: X509Handle

    /// The certificate as PEM text.
    public let pem: String
    /// The subject's UID (OID 0.9.2342.19200300.100.1.1); APNs certificates carry the bundle id here.
    public let subjectUID: String?
    /// The subject's common name.
    public let commonName: String?
    /// The subject in OpenSSL's one-line form ("/UID=…/CN=…"), for logs.
    public let subject: String
    /// Entries of Apple's topics extension (1.2.840.113635.100.6.3.6); empty when absent.
    public let apnsTopicEntries: [APNSCertificateTopic]
    /// True when Apple's development marker extension (1.2.840.113635.100.6.3.1) is present.
    public let supportsDevelopment: Bool
    /// True when Apple's production marker extension (1.2.840.113635.100.6.3.2) is present.
    public let supportsProduction: Bool
    /// Start of the validity period.
    public let notBefore: Date
    /// End of the validity period.
    public let notAfter: Date
    /// SHA-256 of the DER form, colon-separated upper-case hex.
    public let sha256Fingerprint: String

    /// Wraps a certificate handle and reads its fields.
    init(handle: X509Handle) throws {
        self.handle = handle
        pem = try handle.pem()
        subjectUID = handle.subjectEntry(nid: NID_userId)
        commonName = handle.subjectEntry(nid: NID_commonName)
        subject = handle.subjectLine()
        apnsTopicEntries =
            handle.extensionValue(oid: APNSCertificateExtensions.topicsOID)
            .map(APNSCertificateExtensions.decodeTopics) ?? []
        supportsDevelopment = handle.extensionValue(oid: APNSCertificateExtensions.developmentOID) != nil
        supportsProduction = handle.extensionValue(oid: APNSCertificateExtensions.productionOID) != nil
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

    /// The topics of Apple's topics extension; empty when the extension is absent.
    public var apnsTopics: [String] {
        apnsTopicEntries.map(\.topic)
    }

    /// The topics this certificate may push to: the extension's, or else the subject UID (pushy's rule).
    public var allowedTopics: [String] {
        if !apnsTopicEntries.isEmpty { return apnsTopics }
        return subjectUID.map { [$0] } ?? []
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
