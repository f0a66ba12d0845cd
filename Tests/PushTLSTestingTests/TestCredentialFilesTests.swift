import APNSCore
import Foundation
import PushTLS
import PushTLSTesting
import Testing

@Suite("TestCredentialFiles")
struct TestCredentialFilesTests {
    @Test("writes every file, keeps keys private, and they all load")
    func writeAndLoad() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("PushTLSTestingTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try TestCredentialFiles.write(
            to: directory.appendingPathComponent("creds").path, bundleID: testBundleID,
            topics: [testBundleID], password: "pw")
        for path in [files.serverKeyPath, files.clientKeyPath, files.clientP12Path, files.clientLegacyP12Path] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(path)")
        }
        let modern = try TLSIdentity(p12Path: files.clientP12Path, password: files.password)
        let legacy = try TLSIdentity(p12Path: files.clientLegacyP12Path, password: files.password)
        let pem = try TLSIdentity(certificatePEMPath: files.clientCertificatePath, keyPEMPath: files.clientKeyPath)
        #expect(modern.certificate.sha256Fingerprint == legacy.certificate.sha256Fingerprint)
        let info = APNSCertificateInfo(subjectUID: pem.certificate.subjectUID, extensionValue: pem.certificate.extensionValue(oid:))
        #expect(info.topics == [files.bundleID])
        let server = try TLSIdentity(certificatePEMPath: files.serverCertificatePath, keyPEMPath: files.serverKeyPath)
        let serverContext = try TLSContext.server(
            TLSServerConfiguration(
                identity: server, clientCertificates: .require(trust: .caFile(files.caCertificatePath))))
        let clientContext = try TLSContext.client(
            TLSClientConfiguration(
                identity: legacy, trust: .caFile(files.caCertificatePath)))
        let result = try TLSContext.handshakeInMemory(client: clientContext, server: serverContext, serverName: "localhost")
        #expect(result.server.peerCertificate?.subjectUID == testBundleID)
    }
}

let testBundleID = "com.sniffmeet.test"
