internal import COpenSSL

/// An EC P-256 private key that signs with ES256 (ECDSA over SHA-256), as APNs token auth needs.
public final class ES256PrivateKey: Sendable {
    /// The owned `EVP_PKEY`.
    let handle: PrivateKeyHandle

    private init(handle: PrivateKeyHandle) {
        self.handle = handle
    }

    /// Parses a PEM key (Apple's .p8 files are PKCS#8 "PRIVATE KEY"); it must be EC P-256.
    public convenience init(pkcs8PEM: String) throws {
        OpenSSLRuntime.ensureInitialized()
        let handle = try PrivateKeyHandle(pem: pkcs8PEM)
        guard handle.isP256 else {
            throw TLSError(.unsupportedKey, "the key is not an EC P-256 key, which ES256 requires")
        }
        self.init(handle: handle)
    }

    /// A fresh random key.
    public static func generate() throws -> ES256PrivateKey {
        OpenSSLRuntime.ensureInitialized()
        return ES256PrivateKey(handle: try PrivateKeyHandle.generateP256())
    }

    /// The key as unencrypted PKCS#8 PEM.
    public var pkcs8PEM: String {
        // Writing a valid in-memory key to a memory BIO only fails when memory runs out.
        (try? handle.privatePEM()) ?? ""
    }

    /// The public half as PEM ("BEGIN PUBLIC KEY").
    public var publicKeyPEM: String {
        (try? handle.publicPEM()) ?? ""
    }

    /// The public key, for verifying.
    public var publicKey: ES256PublicKey {
        get throws { try ES256PublicKey(pem: publicKeyPEM) }
    }

    /// Signs SHA-256(message); returns the 64-byte JOSE form r||s.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        let context = try OpenSSLCall.check(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        defer { EVP_MD_CTX_free(context) }
        try OpenSSLCall.check(
            status: EVP_DigestSignInit(context, nil, EVP_sha256(), nil, handle.raw),
            "EVP_DigestSignInit")
        var length = 0
        try OpenSSLCall.check(status: EVP_DigestSign(context, nil, &length, message, message.count), "EVP_DigestSign")
        var der = [UInt8](repeating: 0, count: length)
        try OpenSSLCall.check(status: EVP_DigestSign(context, &der, &length, message, message.count), "EVP_DigestSign")
        return try ECDSASignature.jose(fromDER: Array(der.prefix(length)))
    }
}
