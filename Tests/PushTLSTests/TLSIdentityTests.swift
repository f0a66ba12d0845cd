import Foundation
import PushTLS
import PushTLSTesting
import Testing

@Suite("TLSIdentity")
struct TLSIdentityTests {
    let authority: TestCertificateAuthority
    let client: IssuedCredential
    let topics = [testBundleID, "\(testBundleID).voip"]

    init() throws {
        authority = try TestCertificateAuthority()
        client = try authority.issueClientCertificate(bundleID: testBundleID, topics: topics)
    }

    /// The loaded identity carries the issued certificate: subject, Apple's extensions (read in APNS) and dates.
    private func expectClientFields(_ identity: TLSIdentity) {
        let issued = try? client.certificate()
        #expect(identity.certificate.subjectUID == testBundleID)
        #expect(identity.certificate.sha256Fingerprint == issued?.sha256Fingerprint)
        for oid in ["1.2.840.113635.100.6.3.1", "1.2.840.113635.100.6.3.2", "1.2.840.113635.100.6.3.6"] {
            #expect(identity.certificate.extensionValue(oid: oid) != nil, "\(oid)")
            #expect(identity.certificate.extensionValue(oid: oid) == issued?.extensionValue(oid: oid), "\(oid)")
        }
        #expect(identity.certificate.notAfter > Date())
        #expect(identity.certificate.notBefore < Date())
    }

    @Test("PEM strings and PEM files load")
    func pem() throws {
        expectClientFields(try client.identity())
        let directory = try TemporaryDirectory()
        let certificatePath = try directory.write(Array(client.certificatePEM.utf8), to: "c.pem")
        let keyPath = try directory.write(Array(client.privateKeyPEM.utf8), to: "k.pem")
        expectClientFields(try TLSIdentity(certificatePEMPath: certificatePath, keyPEMPath: keyPath))
    }

    @Test("modern and legacy .p12 load", arguments: [false, true])
    func pkcs12(legacy: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try client.pkcs12(password: "s3cret", legacy: legacy), to: "client.p12")
        let identity = try TLSIdentity(p12Path: path, password: "s3cret")
        expectClientFields(identity)
        #expect(identity.source == path)
    }

    @Test("wrong password is .wrongPassword, for modern and legacy files", arguments: [false, true])
    func wrongPassword(legacy: Bool) throws {
        let data = try client.pkcs12(password: "right", legacy: legacy)
        var caught: TLSError?
        do {
            _ = try TLSIdentity(p12Data: data, password: "wrong", source: "/x/a.p12")
        } catch let error as TLSError {
            caught = error
        }
        #expect(caught?.kind == .wrongPassword)
        #expect(caught?.message == "wrong password for /x/a.p12")
    }

    @Test("garbage is .notPKCS12, a missing file .fileMissing")
    func notPKCS12() throws {
        let directory = try TemporaryDirectory()
        var generator = SystemRandomNumberGenerator()
        let garbage = (0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = try directory.write(garbage, to: "garbage.p12")
        #expect(tlsErrorKind { _ = try TLSIdentity(p12Path: path, password: "x") } == .notPKCS12)
        let pemPath = try directory.write(Array(client.certificatePEM.utf8), to: "not.p12")
        #expect(tlsErrorKind { _ = try TLSIdentity(p12Path: pemPath, password: "x") } == .notPKCS12)
        #expect(tlsErrorKind { _ = try TLSIdentity(p12Path: directory.file("absent.p12"), password: "x") } == .fileMissing)
        #expect(
            tlsErrorKind {
                _ = try TLSIdentity(certificatePEMPath: directory.file("absent.pem"), keyPEMPath: path)
            } == .fileMissing)
    }

    @Test("a certificate-only .p12 is .noPrivateKey")
    func noPrivateKey() throws {
        let data = try client.pkcs12(password: "pw", includePrivateKey: false)
        #expect(tlsErrorKind { _ = try TLSIdentity(p12Data: data, password: "pw", source: "cert-only") } == .noPrivateKey)
    }

    @Test("a key from another credential is .keyMismatch")
    func keyMismatch() throws {
        let other = try authority.issueServerCertificate()
        #expect(
            tlsErrorKind {
                _ = try TLSIdentity(certificatePEM: client.certificatePEM, keyPEM: other.privateKeyPEM)
            } == .keyMismatch)
        #expect(tlsErrorKind { _ = try TLSIdentity(certificatePEM: "x", keyPEM: other.privateKeyPEM) } == .noCertificate)
        #expect(tlsErrorKind { _ = try TLSIdentity(certificatePEM: client.certificatePEM, keyPEM: "x") } == .noPrivateKey)
    }

    @Test("an expired certificate loads, but checkNotExpired throws with the date")
    func expired() throws {
        let notAfter = Date(timeIntervalSince1970: 1_600_000_000)  // 2020-09-13T12:26:40Z
        let expired = try authority.issueClientCertificate(
            bundleID: testBundleID, notBefore: Date(timeIntervalSince1970: 1_500_000_000), notAfter: notAfter)
        let identity = try TLSIdentity(p12Data: try expired.pkcs12(password: "pw"), password: "pw", source: "old.p12")
        #expect(identity.certificate.isExpired())
        var caught: TLSError?
        do { try identity.checkNotExpired() } catch let error as TLSError { caught = error }
        #expect(caught?.kind == .expiredCertificate)
        #expect(caught?.message.contains("2020-09-13T12:26:40Z") == true)
        try identity.checkNotExpired(at: Date(timeIntervalSince1970: 1_550_000_000))
    }

    @Test(".p12 files made by the openssl command line load", arguments: [["-legacy"], []])
    func openSSLCommandLine(extra: [String]) throws {
        let directory = try TemporaryDirectory()
        try directory.write(Array(client.certificatePEM.utf8), to: "client.pem")
        try directory.write(Array(client.privateKeyPEM.utf8), to: "client-key.pem")
        let result = try run(
            openSSLTool,
            ["pkcs12", "-export"] + extra + [
                "-in", "client.pem", "-inkey", "client-key.pem", "-out", "client.p12", "-passout", "pass:hunter2",
            ], in: directory.path)
        try #require(result.status == 0, "openssl failed: \(result.stderr)")
        let identity = try TLSIdentity(p12Path: directory.file("client.p12"), password: "hunter2")
        expectClientFields(identity)
        #expect(
            tlsErrorKind {
                _ = try TLSIdentity(p12Path: directory.file("client.p12"), password: "hunter3")
            } == .wrongPassword)
    }

    @Test("an identity exports to a .p12 that loads again")
    func exportRoundTrip() throws {
        let identity = try client.identity()
        let again = try TLSIdentity(p12Data: identity.pkcs12(password: ""), password: "", source: "export")
        #expect(again.certificate.sha256Fingerprint == identity.certificate.sha256Fingerprint)
        #expect(try again.privateKeyPEM() == identity.privateKeyPEM())
    }
}
