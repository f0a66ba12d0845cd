import Foundation
import PushTLS

/// A directory of freshly generated test credentials: CA, server and APNs-style client.
public struct TestCredentialFiles: Sendable {
    /// The directory holding the files.
    public let directory: String
    /// `ca.pem`: the CA certificate both sides trust.
    public let caCertificatePath: String
    /// `server.pem`: certificate for localhost, 127.0.0.1 and ::1.
    public let serverCertificatePath: String
    /// `server-key.pem` (0600).
    public let serverKeyPath: String
    /// `client.p12`: modern (AES-256/PBKDF2) PKCS#12 of the client identity (0600).
    public let clientP12Path: String
    /// `client-legacy.p12`: RC2-40/3DES PKCS#12 of the same identity (0600).
    public let clientLegacyP12Path: String
    /// `client.pem`: the client certificate.
    public let clientCertificatePath: String
    /// `client-key.pem` (0600).
    public let clientKeyPath: String
    /// The password of both .p12 files.
    public let password: String
    /// `client.p12.password`: that password on one line (0600), for `--apns-password-file` and the like.
    public let clientP12PasswordPath: String
    /// The bundle id in the client certificate's UID.
    public let bundleID: String

    /// Generates a CA, a server and a client credential and writes them into `directory`
    /// (created if needed).
    public static func write(
        to directory: String, bundleID: String, topics: [String] = [], password: String
    ) throws -> TestCredentialFiles {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let base = URL(fileURLWithPath: directory)
        func path(_ name: String) -> String { base.appendingPathComponent(name).path }
        let files = TestCredentialFiles(
            directory: directory, caCertificatePath: path("ca.pem"),
            serverCertificatePath: path("server.pem"), serverKeyPath: path("server-key.pem"),
            clientP12Path: path("client.p12"), clientLegacyP12Path: path("client-legacy.p12"),
            clientCertificatePath: path("client.pem"), clientKeyPath: path("client-key.pem"),
            password: password, clientP12PasswordPath: path("client.p12.password"), bundleID: bundleID)

        let authority = try TestCertificateAuthority()
        let server = try authority.issueServerCertificate()
        let client = try authority.issueClientCertificate(bundleID: bundleID, topics: topics)
        try CredentialFile.write(Array(authority.certificatePEM.utf8), to: files.caCertificatePath)
        try CredentialFile.write(Array(server.certificatePEM.utf8), to: files.serverCertificatePath)
        try CredentialFile.write(Array(server.privateKeyPEM.utf8), to: files.serverKeyPath, secret: true)
        try CredentialFile.write(Array(client.certificatePEM.utf8), to: files.clientCertificatePath)
        try CredentialFile.write(Array(client.privateKeyPEM.utf8), to: files.clientKeyPath, secret: true)
        try CredentialFile.write(client.pkcs12(password: password), to: files.clientP12Path, secret: true)
        try CredentialFile.write(Array((password + "\n").utf8), to: files.clientP12PasswordPath, secret: true)
        try CredentialFile.write(
            client.pkcs12(password: password, legacy: true),
            to: files.clientLegacyP12Path, secret: true)
        return files
    }
}
