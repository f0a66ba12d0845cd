public import APNSCore
public import Foundation
public import PushTLS

/// A throw-away certificate authority with EC P-256 keys, for tests and the mock APNs server.
/// Nothing it makes is ever written to the repository; everything is generated at run time.
public final class TestCertificateAuthority: Sendable {
    /// The CA's own certificate.
    public let certificate: TLSCertificate
    /// The CA's signing key.
    private let key: PrivateKeyHandle

    /// A new self-signed CA valid from an hour ago for ten years.
    public init(commonName: String = "SniffMeet Push Test CA") throws {
        OpenSSLRuntime.ensureInitialized()
        key = try PrivateKeyHandle.generateP256()
        let now = Date()
        let builder = try CertificateBuilder(
            subject: [("CN", commonName)], publicKey: key,
            notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(10 * 365 * 86400))
        try builder.addExtension("basicConstraints", "critical,CA:TRUE")
        try builder.addExtension("keyUsage", "critical,keyCertSign,cRLSign,digitalSignature")
        try builder.addExtension("subjectKeyIdentifier", "hash")
        certificate = try TLSCertificate(handle: builder.sign(issuer: nil, key: key))
    }

    /// The CA certificate as PEM (what clients and servers trust).
    public var certificatePEM: String {
        certificate.pem
    }

    /// A server certificate for `hosts` (DNS names and IP literals go into subjectAltName).
    public func issueServerCertificate(
        hosts: [String] = ["localhost", "127.0.0.1", "::1"], validDays: Int = 30
    ) throws -> IssuedCredential {
        let now = Date()
        let names = hosts.map { TLSContext.isIPLiteral($0) ? "IP:\($0)" : "DNS:\($0)" }
        return try issue(
            subject: [("CN", hosts.first ?? "localhost")],
            notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(Double(validDays) * 86400)
        ) { builder in
            if !names.isEmpty {
                try builder.addExtension("subjectAltName", names.joined(separator: ","))
            }
            try builder.addExtension("extendedKeyUsage", "serverAuth")
        }
    }

    /// An APNs-style client certificate: UID=bundleID, CN="Apple Push Services: bundleID", Apple's
    /// environment markers and, when `topics` is not empty, Apple's topics extension.
    public func issueClientCertificate(
        bundleID: String, topics: [String] = [], environments: APNSCertificateEnvironments = .both,
        notBefore: Date? = nil, notAfter: Date? = nil
    ) throws -> IssuedCredential {
        let now = Date()
        return try issue(
            subject: [("UID", bundleID), ("CN", "Apple Push Services: \(bundleID)")],
            notBefore: notBefore ?? now.addingTimeInterval(-3600),
            notAfter: notAfter ?? now.addingTimeInterval(365 * 86400)
        ) { builder in
            try builder.addExtension("extendedKeyUsage", "clientAuth")
            if environments.contains(.development) {
                try builder.addExtension(
                    oid: APNSCertificateExtensions.developmentOID,
                    der: APNSCertificateExtensions.markerValue)
            }
            if environments.contains(.production) {
                try builder.addExtension(
                    oid: APNSCertificateExtensions.productionOID,
                    der: APNSCertificateExtensions.markerValue)
            }
            if !topics.isEmpty {
                let entries = topics.map(APNSCertificateTopic.init(inferringKindOf:))
                try builder.addExtension(
                    oid: APNSCertificateExtensions.topicsOID,
                    der: APNSCertificateExtensions.encodeTopics(entries))
            }
        }
    }

    /// Generates a key, builds a leaf certificate with the common extensions, and signs it.
    private func issue(
        subject: [(field: String, value: String)], notBefore: Date, notAfter: Date,
        extensions: (CertificateBuilder) throws -> Void
    ) throws -> IssuedCredential {
        let leafKey = try PrivateKeyHandle.generateP256()
        let builder = try CertificateBuilder(
            subject: subject, publicKey: leafKey,
            notBefore: notBefore, notAfter: notAfter)
        try builder.addExtension("basicConstraints", "critical,CA:FALSE")
        try builder.addExtension("keyUsage", "critical,digitalSignature")
        try builder.addExtension("subjectKeyIdentifier", "hash")
        try builder.addExtension("authorityKeyIdentifier", "keyid:always", issuer: certificate.handle)
        try extensions(builder)
        let leaf = try builder.sign(issuer: certificate.handle, key: key)
        return IssuedCredential(certificatePEM: try leaf.pem(), privateKeyPEM: try leafKey.privatePEM())
    }
}
