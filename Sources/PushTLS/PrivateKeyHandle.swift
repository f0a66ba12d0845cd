internal import COpenSSL

/// Owns one OpenSSL `EVP_PKEY*`, freed in `deinit`.
///
/// `@unchecked Sendable`: immutable once wrapped (`raw` is a `let` and nothing changes the key), and
/// OpenSSL 3 lets many threads sign or verify with one `EVP_PKEY` at once (each operation has its own context).
package final class PrivateKeyHandle: @unchecked Sendable {
    /// The `EVP_PKEY*`.
    package let raw: OpaquePointer

    /// Takes over a reference the caller owns.
    init(taking raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        EVP_PKEY_free(raw)
    }

    /// Parses an unencrypted private key in PEM (PKCS#8 "PRIVATE KEY", or "EC/RSA PRIVATE KEY").
    package convenience init(pem: String) throws {
        let bio = try MemoryBIO(text: pem)
        let raw = try OpenSSLCall.check(
            // A callback that supplies no passphrase, so OpenSSL never prompts on a terminal.
            PEM_read_bio_PrivateKey(bio.raw, nil, { _, _, _, _ in 0 }, nil), "PEM_read_bio_PrivateKey",
            kind: .invalidPEM, "no PEM private key found")
        self.init(taking: raw)
    }

    /// Parses a public key in PEM ("PUBLIC KEY", SubjectPublicKeyInfo).
    convenience init(publicPEM pem: String) throws {
        let bio = try MemoryBIO(text: pem)
        let raw = try OpenSSLCall.check(
            PEM_read_bio_PUBKEY(bio.raw, nil, nil, nil), "PEM_read_bio_PUBKEY",
            kind: .invalidPEM, "no PEM public key found")
        self.init(taking: raw)
    }

    /// A fresh EC key on the P-256 curve.
    package static func generateP256() throws -> PrivateKeyHandle {
        let context = try OpenSSLCall.check(EVP_PKEY_CTX_new_from_name(nil, "EC", nil), "EVP_PKEY_CTX_new_from_name")
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSLCall.check(status: EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        try OpenSSLCall.check(status: EVP_PKEY_CTX_set_group_name(context, "P-256"), "EVP_PKEY_CTX_set_group_name")
        var key: OpaquePointer?
        try OpenSSLCall.check(status: EVP_PKEY_generate(context, &key), "EVP_PKEY_generate")
        return PrivateKeyHandle(taking: try OpenSSLCall.check(key, "EVP_PKEY_generate"))
    }

    /// The private key as unencrypted PKCS#8 PEM ("BEGIN PRIVATE KEY").
    package func privatePEM() throws -> String {
        let bio = try MemoryBIO()
        try OpenSSLCall.check(
            status: PEM_write_bio_PrivateKey(bio.raw, raw, nil, nil, 0, nil, nil), "PEM_write_bio_PrivateKey")
        return bio.text
    }

    /// The public half as PEM ("BEGIN PUBLIC KEY").
    func publicPEM() throws -> String {
        let bio = try MemoryBIO()
        try OpenSSLCall.check(status: PEM_write_bio_PUBKEY(bio.raw, raw), "PEM_write_bio_PUBKEY")
        return bio.text
    }

    /// True for an EC key on P-256 (the only curve ES256 allows).
    var isP256: Bool {
        EVP_PKEY_get_base_id(raw) == EVP_PKEY_EC && EVP_PKEY_get_bits(raw) == 256
    }

    /// True when this key is the private half of the certificate's public key.
    func matches(_ certificate: X509Handle) -> Bool {
        let result = X509_check_private_key(certificate.raw, raw) == 1
        OpenSSLCall.clearErrors()
        return result
    }
}
