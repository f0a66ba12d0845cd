internal import COpenSSL
package import Foundation

/// Assembles and signs one X.509 v3 certificate with OpenSSL. Package API: the test certificate authority
/// (`PushTLSTesting`) issues its certificates with it, so that no C reaches that module.
package final class CertificateBuilder {
    /// The `X509*` under construction, freed in `deinit`.
    private let raw: OpaquePointer

    /// Starts a certificate for `publicKey` with `subject` entries (short names: "CN", "UID", ...).
    package init(subject: [(field: String, value: String)], publicKey: PrivateKeyHandle, notBefore: Date, notAfter: Date) throws {
        raw = try OpenSSLCall.check(X509_new(), "X509_new")
        try OpenSSLCall.check(status: X509_set_version(raw, 2), "X509_set_version")
        try setRandomSerial()
        try OpenSSLCall.check(
            ASN1_TIME_set(X509_getm_notBefore(raw), time_t(notBefore.timeIntervalSince1970)),
            "ASN1_TIME_set")
        try OpenSSLCall.check(
            ASN1_TIME_set(X509_getm_notAfter(raw), time_t(notAfter.timeIntervalSince1970)),
            "ASN1_TIME_set")
        let name = try OpenSSLCall.check(X509_NAME_new(), "X509_NAME_new")
        defer { X509_NAME_free(name) }
        for entry in subject {
            try OpenSSLCall.check(
                status: X509_NAME_add_entry_by_txt(name, entry.field, MBSTRING_UTF8, entry.value, -1, -1, 0),
                "X509_NAME_add_entry_by_txt")
        }
        try OpenSSLCall.check(status: X509_set_subject_name(raw, name), "X509_set_subject_name")
        try OpenSSLCall.check(status: X509_set_pubkey(raw, publicKey.raw), "X509_set_pubkey")
    }

    deinit {
        X509_free(raw)
    }

    private func setRandomSerial() throws {
        var bytes = [UInt8](repeating: 0, count: 16)
        try OpenSSLCall.check(status: RAND_bytes(&bytes, Int32(bytes.count)), "RAND_bytes")
        bytes[0] &= 0x7F  // keep the serial positive
        bytes[0] |= 0x01  // and of full length
        let number = try OpenSSLCall.check(BN_bin2bn(bytes, Int32(bytes.count), nil), "BN_bin2bn")
        defer { BN_free(number) }
        try OpenSSLCall.check(BN_to_ASN1_INTEGER(number, X509_get_serialNumber(raw)), "BN_to_ASN1_INTEGER")
    }

    /// Adds a standard extension by OpenSSL's short name ("basicConstraints", "keyUsage", "subjectAltName",
    /// ...) with its value in `openssl.cnf` syntax, e.g. "critical,CA:TRUE". `issuer` nil means self-issued
    /// (needed by authorityKeyIdentifier).
    package func addExtension(_ name: String, _ value: String, issuer: X509Handle? = nil) throws {
        let nid = OBJ_sn2nid(name)
        guard nid != NID_undef else { throw TLSError(.openSSL, "unknown certificate extension \(name)") }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.raw ?? raw, raw, nil, nil, 0)
        let ext = try OpenSSLCall.check(
            X509V3_EXT_conf_nid(nil, &context, nid, value), "X509V3_EXT_conf_nid",
            "cannot make extension \(value)")
        defer { X509_EXTENSION_free(ext) }
        try OpenSSLCall.check(status: X509_add_ext(raw, ext, -1), "X509_add_ext")
    }

    /// Adds a private extension by dotted OID with a DER value.
    package func addExtension(oid: String, der: [UInt8], critical: Bool = false) throws {
        let object = try OpenSSLCall.check(OBJ_txt2obj(oid, 1), "OBJ_txt2obj")
        defer { ASN1_OBJECT_free(object) }
        let value = try OpenSSLCall.check(ASN1_OCTET_STRING_new(), "ASN1_OCTET_STRING_new")
        defer { ASN1_OCTET_STRING_free(value) }
        try OpenSSLCall.check(status: ASN1_OCTET_STRING_set(value, der, Int32(der.count)), "ASN1_OCTET_STRING_set")
        let ext = try OpenSSLCall.check(
            X509_EXTENSION_create_by_OBJ(nil, object, critical ? 1 : 0, value),
            "X509_EXTENSION_create_by_OBJ")
        defer { X509_EXTENSION_free(ext) }
        try OpenSSLCall.check(status: X509_add_ext(raw, ext, -1), "X509_add_ext")
    }

    /// Sets the issuer name, signs with SHA-256 and returns the finished certificate.
    /// `issuer` nil means self-signed.
    package func sign(issuer: X509Handle?, key: PrivateKeyHandle) throws -> X509Handle {
        let issuerName = X509_get_subject_name(issuer?.raw ?? raw)
        try OpenSSLCall.check(status: X509_set_issuer_name(raw, issuerName), "X509_set_issuer_name")
        try OpenSSLCall.check(status: X509_sign(raw, key.raw, EVP_sha256()), "X509_sign")
        return X509Handle(retaining: raw)
    }
}
