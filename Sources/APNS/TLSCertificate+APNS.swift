public import APNSCore
public import PushTLS

extension TLSCertificate {
    /// What this certificate says about APNs: its bundle id, topics and gateways.
    public var apns: APNSCertificateInfo {
        APNSCertificateInfo(subjectUID: subjectUID, extensionValue: extensionValue(oid:))
    }
}
