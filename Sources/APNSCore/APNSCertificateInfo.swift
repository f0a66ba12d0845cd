/// What an APNs provider certificate says about itself: the bundle id in its subject UID, Apple's topics
/// extension (1.2.840.113635.100.6.3.6) and the gateway markers (1.2.840.113635.100.6.3.1 development,
/// 1.2.840.113635.100.6.3.2 production).
///
/// Built from the certificate's fields rather than the certificate, so that this module needs no TLS
/// library: `APNS` reads it off a `TLSCertificate` (`certificate.apns`).
public struct APNSCertificateInfo: Sendable, Hashable {
    /// The subject's UID: Apple's certificates carry the bundle id there.
    public let subjectUID: String?
    /// The entries of the topics extension; empty when it is absent (or malformed).
    public let topicEntries: [APNSCertificateTopic]
    /// The gateways the marker extensions allow.
    public let environments: APNSCertificateEnvironments

    /// Reads the facts from a certificate's subject UID and its extension values: `extensionValue` returns
    /// the DER value of the extension with a dotted OID, or nil when the certificate has none.
    public init(subjectUID: String?, extensionValue: (_ oid: String) -> [UInt8]?) {
        self.subjectUID = subjectUID
        topicEntries =
            extensionValue(APNSCertificateExtensions.topicsOID).map(APNSCertificateExtensions.decodeTopics) ?? []
        var environments: APNSCertificateEnvironments = []
        if extensionValue(APNSCertificateExtensions.developmentOID) != nil { environments.insert(.development) }
        if extensionValue(APNSCertificateExtensions.productionOID) != nil { environments.insert(.production) }
        self.environments = environments
    }

    /// The topics of the topics extension; empty when the extension is absent.
    public var topics: [String] {
        topicEntries.map(\.topic)
    }

    /// The topics this certificate may push to: the extension's, or else the subject UID (pushy's rule).
    public var allowedTopics: [String] {
        if !topicEntries.isEmpty { return topics }
        return subjectUID.map { [$0] } ?? []
    }

    /// True when the development marker is present (the sandbox gateway accepts the certificate).
    public var supportsDevelopment: Bool {
        environments.contains(.development)
    }

    /// True when the production marker is present.
    public var supportsProduction: Bool {
        environments.contains(.production)
    }
}
