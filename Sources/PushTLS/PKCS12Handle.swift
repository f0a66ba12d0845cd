internal import COpenSSL

/// Owns one OpenSSL `PKCS12*` and knows how to open and build .p12 files.
package final class PKCS12Handle {
    /// The `PKCS12*`, freed in `deinit`.
    let raw: OpaquePointer

    /// What a .p12 yields: certificate, private key and any extra certificates.
    struct Contents {
        let certificate: X509Handle?
        let privateKey: PrivateKeyHandle?
        let chain: [X509Handle]
    }

    /// Decodes DER; `.notPKCS12` when the bytes are not a PKCS#12 structure.
    init(der bytes: [UInt8], source: String) throws {
        let bio = try MemoryBIO(bytes: bytes)
        raw = try OpenSSLCall.check(
            d2i_PKCS12_bio(bio.raw, nil), "d2i_PKCS12_bio",
            kind: .notPKCS12, "not a PKCS#12 file: \(source)")
    }

    deinit {
        PKCS12_free(raw)
    }

    /// Verifies the password against the MAC (when there is one), then decrypts, loading the
    /// legacy provider and retrying once when the first attempt fails.
    func open(password: String, source: String) throws -> Contents {
        if PKCS12_mac_present(raw) == 1 {
            let verified =
                PKCS12_verify_mac(raw, password, -1) == 1
                || (password.isEmpty && PKCS12_verify_mac(raw, nil, 0) == 1)
            if !verified {
                throw TLSError(
                    .wrongPassword, "wrong password for \(source)",
                    function: "PKCS12_verify_mac", openSSLErrors: OpenSSLCall.errorQueue())
            }
        }
        OpenSSLCall.clearErrors()
        if let contents = parse(password: password) { return contents }
        var errors = OpenSSLCall.errorQueue()
        if !LegacyProvider.attempted, LegacyProvider.load() {
            if let contents = parse(password: password) { return contents }
            errors = OpenSSLCall.errorQueue()
        }
        if PKCS12_mac_present(raw) != 1 {
            throw TLSError(.wrongPassword, "wrong password for \(source)", function: "PKCS12_parse", openSSLErrors: errors)
        }
        throw TLSError(.openSSL, "cannot decrypt \(source)", function: "PKCS12_parse", openSSLErrors: errors)
    }

    private func parse(password: String) -> Contents? {
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var extra: OpaquePointer?
        guard PKCS12_parse(raw, password, &key, &certificate, &extra) == 1 else { return nil }
        var chain: [X509Handle] = []
        if let extra {
            for index in 0..<push_sk_X509_num(extra) {
                if let item = push_sk_X509_value(extra, index) {
                    chain.append(X509Handle(retaining: item))
                }
            }
            push_sk_X509_pop_free(extra)
        }
        return Contents(
            certificate: certificate.map(X509Handle.init(taking:)),
            privateKey: key.map(PrivateKeyHandle.init(taking:)),
            chain: chain)
    }

    /// Builds a .p12: modern is AES-256-CBC + PBKDF2 (OpenSSL 3's defaults); legacy is
    /// RC2-40 for certificates and 3DES for the key, as old Keychain exports are.
    package static func build(
        certificate: X509Handle, privateKey: PrivateKeyHandle?, chain: [X509Handle],
        password: String, friendlyName: String?, legacy: Bool
    ) throws -> [UInt8] {
        if legacy {
            try OpenSSLCall.check(LegacyProvider.load(), "OSSL_PROVIDER_load", "the OpenSSL legacy provider is not available")
        }
        let stack = try OpenSSLCall.check(push_sk_X509_new_null(), "sk_X509_new_null")
        defer { push_sk_X509_pop_free(stack) }
        for item in chain {
            X509_up_ref(item.raw)
            try OpenSSLCall.check(push_sk_X509_push(stack, item.raw) > 0, "sk_X509_push")
        }
        let keyNID: Int32 = legacy ? NID_pbe_WithSHA1And3_Key_TripleDES_CBC : 0
        let certificateNID: Int32 = legacy ? NID_pbe_WithSHA1And40BitRC2_CBC : 0
        let p12 = try OpenSSLCall.check(
            PKCS12_create(
                password, friendlyName, privateKey?.raw, certificate.raw, stack,
                keyNID, certificateNID, 0, 0, 0),
            "PKCS12_create")
        defer { PKCS12_free(p12) }
        let bio = try MemoryBIO()
        try OpenSSLCall.check(status: i2d_PKCS12_bio(bio.raw, p12), "i2d_PKCS12_bio")
        return bio.bytes
    }
}
