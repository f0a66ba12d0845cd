import PushService
import PushTLS
import TestSupport
import Testing

@Suite("API key check: exactly the configured keys")
struct APIKeyAuthenticatorTests {
    /// Printable ASCII without space, the alphabet of configured keys.
    static let keyAlphabet = Array(UInt8(0x21)...UInt8(0x7E))

    static func randomKey(length: Int, using random: inout SeededGenerator) -> String {
        String(decoding: (0..<length).map { _ in keyAlphabet.randomElement(using: &random)! }, as: UTF8.self)
    }

    static func randomBytes(_ count: Int, using random: inout SeededGenerator) -> String {
        // Any Unicode scalar a header could carry, ASCII-heavy so suffixes look like key material.
        String(
            String.UnicodeScalarView(
                (0..<count).map { _ in
                    Bool.random(using: &random)
                        ? Unicode.Scalar(keyAlphabet.randomElement(using: &random)!)
                        : Unicode.Scalar(UInt32.random(in: 0x01...0x2FF, using: &random))!
                }))
    }

    @Test("the reported bypass: a 48-character key followed by 256 (or 512) extra bytes is refused")
    func lengthMultipleOf256() throws {
        let key = String(repeating: "abcdef", count: 8)
        let authenticator = APIKeyAuthenticator(keys: [try APIKey(name: "k", secret: key)])
        #expect(authenticator.authenticate("Bearer " + key)?.name == "k")
        for extra in [1, 255, 256, 257, 512, 768] {
            #expect(
                authenticator.authenticate("Bearer " + key + String(repeating: "x", count: extra)) == nil,
                "key + \(extra) bytes")
        }
    }

    @Test(
        "random keys: accepted whole, refused with any prefix, any suffix up to 1 KiB, repeated, or in another form",
        arguments: [UInt64(1), 2, 3, 4])
    func randomKeys(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<8 {
            let key = Self.randomKey(length: Int.random(in: 1...120, using: &random), using: &random)
            let other = Self.randomKey(length: Int.random(in: 1...120, using: &random), using: &random)
            let authenticator = APIKeyAuthenticator(keys: [
                try APIKey(name: "other", secret: other),
                try APIKey(name: "key", secret: key),
            ])
            for scheme in ["Bearer ", "bearer ", "BEARER ", "bEaReR "] {
                #expect(authenticator.authenticate(scheme + key)?.name == "key")
            }
            for length in 0..<key.utf8.count {
                let prefix = String(decoding: key.utf8.prefix(length), as: UTF8.self)
                #expect(authenticator.authenticate("Bearer " + prefix) == nil, "prefix of \(length)")
            }
            for length in 1...1024 {
                let suffix = Self.randomBytes(length, using: &random)
                #expect(authenticator.authenticate("Bearer " + key + suffix) == nil, "suffix of \(length)")
                #expect(authenticator.authenticate("Bearer " + suffix + key) == nil, "key after \(length) bytes")
            }
            for forged in [key + key, key + " " + key, key + "," + other, other + key, key.uppercased() == key ? key + "A" : key.uppercased()]
            where forged != key {
                #expect(authenticator.authenticate("Bearer " + forged) == nil)
            }
            for header in [
                "Basic " + key, "Token " + key, "Bearer" + key, "Bearerx " + key, "Bear " + key, key,
                "Bearer  " + key, "Bearer\t" + key, " Bearer " + key, "Bearer " + key + " ",
                "Bearer " + key + "\r\n", "Bearer " + key + "\0", "Bearer\u{00A0}" + key, "Bearer\0" + key,
                "Bearer " + " " + key, "Bearer " + key + "\t", "", "Bearer", "Bearer ",
            ] {
                #expect(authenticator.authenticate(header) == nil, "header \(header.debugDescription)")
            }
        }
        #expect(APIKeyAuthenticator(keys: [try APIKey(name: "k", secret: "k")]).authenticate(nil) == nil)
    }

    @Test("a key configured as sha256:<hex> accepts the key, not its digest")
    func digestConfiguredKey() throws {
        let key = "s3cret-key-for-digest"
        let hex = SHA256Digest.hex(of: key)
        #expect(hex.count == 64)
        let authenticator = APIKeyAuthenticator(keys: [try APIKey(name: "hashed", secret: "sha256:" + hex)])
        #expect(authenticator.authenticate("Bearer " + key)?.name == "hashed")
        #expect(authenticator.authenticate("Bearer " + hex) == nil)
        #expect(authenticator.authenticate("Bearer sha256:" + hex) == nil)
        // Upper-case hex names the same digest.
        #expect(try APIKey(name: "a", secret: "sha256:" + hex.uppercased()).digest == APIKey(name: "b", secret: key).digest)
    }

    @Test("SHA-256 matches the published test vector")
    func sha256Vector() {
        #expect(SHA256Digest.hex(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test(
        "malformed keys and names are configuration errors",
        arguments: [
            ("k", "sha256:abc"), ("k", "sha256:" + String(repeating: "g", count: 64)),
            ("k", "has space"), ("k", ""), ("k", "tab\tkey"), ("bad name", "key"), ("", "key"),
            (String(repeating: "n", count: 65), "key"),
        ])
    func malformed(name: String, secret: String) {
        #expect(throws: ConfigurationError.self) { try APIKey(name: name, secret: secret) }
    }
}
