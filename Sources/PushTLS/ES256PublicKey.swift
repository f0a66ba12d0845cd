internal import COpenSSL

/// An EC P-256 public key that verifies ES256 signatures in the 64-byte JOSE form.
public final class ES256PublicKey: Sendable {
    /// The owned `EVP_PKEY`.
    let handle: PrivateKeyHandle

    /// Parses a PEM public key ("BEGIN PUBLIC KEY"); it must be EC P-256.
    public init(pem: String) throws {
        OpenSSLRuntime.ensureInitialized()
        handle = try PrivateKeyHandle(publicPEM: pem)
        guard handle.isP256 else {
            throw TLSError(.unsupportedKey, "the key is not an EC P-256 key, which ES256 requires")
        }
    }

    /// The key as PEM.
    public var pem: String {
        (try? handle.publicPEM()) ?? ""
    }

    /// True when `signature` (r||s, 64 bytes) is a valid ES256 signature of `message`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        defer { OpenSSLCall.clearErrors() }
        guard let der = ECDSASignature.der(fromJOSE: signature), let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, handle.raw) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }
}
