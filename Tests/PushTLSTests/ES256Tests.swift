import Foundation
import Testing

@testable import PushTLS

@Suite("ES256 and Base64URL")
struct ES256Tests {
    @Test("sign and verify round trip; tampering is rejected")
    func roundTrip() throws {
        let key = try ES256PrivateKey.generate()
        let message = Array("header.claims".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        let publicKey = try ES256PublicKey(pem: key.publicKeyPEM)
        #expect(publicKey.verify(signature: signature, message: message))
        #expect(!publicKey.verify(signature: signature, message: Array("header.claimz".utf8)))
        var flipped = signature
        flipped[10] ^= 0x01
        #expect(!publicKey.verify(signature: flipped, message: message))
        #expect(!publicKey.verify(signature: Array(signature.prefix(63)), message: message))
        let other = try ES256PrivateKey.generate()
        #expect(!(try other.publicKey).verify(signature: signature, message: message))
    }

    @Test("PKCS#8 PEM round-trips; non-P-256 keys are refused")
    func pemRoundTrip() throws {
        let key = try ES256PrivateKey.generate()
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let again = try ES256PrivateKey(pkcs8PEM: key.pkcs8PEM)
        #expect(again.publicKeyPEM == key.publicKeyPEM)
        #expect(tlsErrorKind { _ = try ES256PrivateKey(pkcs8PEM: "nope") } == .invalidPEM)
    }

    @Test("interoperates with openssl dgst in both directions")
    func openSSLInterop() throws {
        let directory = try TemporaryDirectory()
        let key = try ES256PrivateKey.generate()
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0".utf8)
        try directory.write(Array(key.pkcs8PEM.utf8), to: "key.pem")
        try directory.write(Array(key.publicKeyPEM.utf8), to: "pub.pem")
        try directory.write(message, to: "message")

        let ours = try key.sign(message)
        try directory.write(try #require(ECDSASignature.der(fromJOSE: ours)), to: "ours.der")
        let verified = try run(
            openSSLTool, ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "ours.der", "message"],
            in: directory.path)
        #expect(verified.status == 0, "\(verified.stderr)")

        let signed = try run(
            openSSLTool, ["dgst", "-sha256", "-sign", "key.pem", "-out", "theirs.der", "message"],
            in: directory.path)
        try #require(signed.status == 0)
        let theirs = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file("theirs.der"))))
        let jose = try ECDSASignature.jose(fromDER: theirs)
        #expect(try ES256PublicKey(pem: key.publicKeyPEM).verify(signature: jose, message: message))
    }

    @Test(
        "Base64URL",
        arguments: [
            ([], ""), ([0xFB], "-w"), ([0xFF, 0xFF], "__8"), ([0x66, 0x6F, 0x6F], "Zm9v"), ([0xFB, 0xEF, 0xBE, 0x00], "----AA"),
        ] as [([UInt8], String)])
    func base64URL(bytes: [UInt8], text: String) {
        #expect(Base64URL.encode(bytes) == text)
        #expect(Base64URL.decode(text) == bytes)
    }

    @Test("Base64URL rejects non-alphabet input")
    func base64URLInvalid() {
        #expect(Base64URL.decode("a*b") == nil)
        #expect(Base64URL.decode("a=b") == nil)
    }
}
