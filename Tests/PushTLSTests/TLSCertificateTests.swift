import APNSCore
import Foundation
import PushTLS
import PushTLSTesting
import Testing

@Suite("TLSCertificate")
struct TLSCertificateTests {
    @Test("client certificate carries UID, CN, Apple's extensions by OID, and dates")
    func clientCertificateFields() throws {
        let authority = try TestCertificateAuthority()
        let notBefore = Date(timeIntervalSince1970: 1_700_000_000)
        let notAfter = Date(timeIntervalSince1970: 1_900_000_000)
        let issued = try authority.issueClientCertificate(
            bundleID: testBundleID, topics: [testBundleID, "\(testBundleID).voip", "\(testBundleID).complication"],
            environments: .production, notBefore: notBefore, notAfter: notAfter)
        let certificate = try TLSCertificate(pem: issued.certificatePEM)

        #expect(certificate.subjectUID == testBundleID)
        #expect(certificate.commonName == "Apple Push Services: \(testBundleID)")
        // Apple's extensions by OID (APNS decodes them): the topics list and the production marker, a DER NULL.
        #expect(certificate.extensionValue(oid: "1.2.840.113635.100.6.3.6")?.first == 0x30)
        #expect(certificate.extensionValue(oid: "1.2.840.113635.100.6.3.2") == [0x05, 0x00])
        #expect(certificate.extensionValue(oid: "1.2.840.113635.100.6.3.1") == nil)
        #expect(certificate.extensionValue(oid: "not an oid") == nil)
        #expect(certificate.notBefore == notBefore)
        #expect(certificate.notAfter == notAfter)
        #expect(!certificate.isExpired(at: Date(timeIntervalSince1970: 1_800_000_000)))
        #expect(certificate.isExpired(at: Date(timeIntervalSince1970: 1_900_000_001)))
        #expect(certificate.sha256Fingerprint.split(separator: ":").count == 32)
        #expect(try TLSCertificate(pem: certificate.pem).sha256Fingerprint == certificate.sha256Fingerprint)
    }

    @Test("server certificate and CA load from PEM files")
    func loadFromFile() throws {
        let directory = try TemporaryDirectory()
        let authority = try TestCertificateAuthority(commonName: "Unit CA")
        let server = try authority.issueServerCertificate()
        let path = try directory.write(Array(server.certificatePEM.utf8), to: "server.pem")
        let certificate = try TLSCertificate.load(pemFile: path)
        #expect(certificate.commonName == "localhost")
        #expect(authority.certificate.commonName == "Unit CA")
        #expect(try TLSCertificate.all(pem: server.certificatePEM + authority.certificatePEM).count == 2)
    }

    @Test("bad input gives invalidPEM or fileMissing")
    func badInput() {
        #expect(tlsErrorKind { _ = try TLSCertificate(pem: "hello") } == .invalidPEM)
        #expect(tlsErrorKind { _ = try TLSCertificate.load(pemFile: "/nonexistent/\(UUID()).pem") } == .fileMissing)
    }

    @Test("the certificate's view agrees with openssl x509")
    func agreesWithOpenSSLTool() throws {
        let directory = try TemporaryDirectory()
        let issued = try TestCertificateAuthority().issueClientCertificate(bundleID: testBundleID)
        try directory.write(Array(issued.certificatePEM.utf8), to: "client.pem")
        let result = try run(openSSLTool, ["x509", "-in", "client.pem", "-noout"], in: directory.path)
        #expect(result.status == 0)
    }
}
