import APNS
import APNSCore
import Foundation
import PushTLS
import PushTLSTesting
import Testing

@Suite("APNs facts of a provider certificate")
struct APNSCertificateInfoTests {
    @Test("a certificate's topics (with their kinds), environments and allowed topics")
    func topicsAndEnvironments() throws {
        let topics = [bundleID, "\(bundleID).voip", "\(bundleID).complication"]
        let issued = try TestCertificateAuthority().issueClientCertificate(
            bundleID: bundleID, topics: topics, environments: .production)
        let info = try issued.certificate().apns
        #expect(info.subjectUID == bundleID)
        #expect(info.topics == topics)
        #expect(info.topicEntries.map(\.kinds) == [["app"], ["voip"], ["complication"]])
        #expect(info.allowedTopics == topics)
        #expect(info.environments == .production)
        #expect(!info.supportsDevelopment)
        #expect(info.supportsProduction)
    }

    @Test("without the topics extension the UID is the only allowed topic")
    func uidFallback() throws {
        let issued = try TestCertificateAuthority().issueClientCertificate(bundleID: bundleID, environments: .development)
        let info = try issued.certificate().apns
        #expect(info.topics.isEmpty)
        #expect(info.allowedTopics == [bundleID])
        #expect(info.supportsDevelopment)
        #expect(!info.supportsProduction)
    }

    @Test("modern and legacy .p12 files keep the topics and both markers", arguments: [false, true])
    func fromPKCS12(legacy: Bool) throws {
        let topics = [bundleID, "\(bundleID).voip"]
        let issued = try TestCertificateAuthority().issueClientCertificate(bundleID: bundleID, topics: topics)
        let identity = try TLSIdentity(p12Data: try issued.pkcs12(password: "pw", legacy: legacy), password: "pw", source: "client.p12")
        #expect(identity.certificate.apns.topics == topics)
        #expect(identity.certificate.apns.environments == .both)
    }

    @Test("a certificate without Apple's extensions allows nothing but its UID, and one without a UID nothing")
    func serverCertificate() throws {
        let info = try TestCertificateAuthority().issueServerCertificate().certificate().apns
        #expect(info.subjectUID == nil)
        #expect(info.environments.isEmpty)
        #expect(info.allowedTopics.isEmpty)
    }
}
