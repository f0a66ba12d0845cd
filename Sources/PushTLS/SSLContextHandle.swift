internal import COpenSSL

/// Owns one OpenSSL `SSL_CTX*`, freed in `deinit` (SSLs made from it keep their own reference).
///
/// `@unchecked Sendable`: immutable once `TLSContext`'s factory has configured it (its setters are internal
/// and called only there, before it is shared); then only `SSL_new` reads it, which any thread may call.
final class SSLContextHandle: @unchecked Sendable {
    /// The `SSL_CTX*`.
    let raw: OpaquePointer

    /// TLS 1.2 suites a server accepts: forward secrecy and AEAD only (no CBC, SHA-1 MACs, RSA key
    /// exchange or 3DES). TLS 1.3's own suites are all of that kind already.
    static let serverTLS12Ciphers = "ECDHE+AESGCM:ECDHE+CHACHA20"

    /// A new context for `TLS_client_method()` or `TLS_server_method()`, TLS 1.2 minimum; a server offers
    /// only `serverTLS12Ciphers` under TLS 1.2.
    init(server: Bool) throws {
        raw = try OpenSSLCall.check(SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()), "SSL_CTX_new")
        try OpenSSLCall.check(
            push_SSL_CTX_set_min_proto_version(raw, TLS1_2_VERSION) == 1,
            "SSL_CTX_set_min_proto_version")
        if server {
            try OpenSSLCall.check(status: SSL_CTX_set_cipher_list(raw, Self.serverTLS12Ciphers), "SSL_CTX_set_cipher_list")
        }
        // libevent's bufferevent_openssl may retry a write from a different buffer address.
        _ = push_SSL_CTX_set_mode(raw, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
    }

    deinit {
        SSL_CTX_free(raw)
    }

    /// Presents `identity`: certificate, key, and chain; checks that key and certificate match.
    func use(_ identity: TLSIdentity) throws {
        try OpenSSLCall.check(
            status: SSL_CTX_use_certificate(raw, identity.certificate.handle.raw),
            "SSL_CTX_use_certificate")
        try OpenSSLCall.check(status: SSL_CTX_use_PrivateKey(raw, identity.privateKey.raw), "SSL_CTX_use_PrivateKey")
        for certificate in identity.chain {
            // SSL_CTX_add_extra_chain_cert takes ownership of one reference.
            X509_up_ref(certificate.handle.raw)
            guard push_SSL_CTX_add_extra_chain_cert(raw, certificate.handle.raw) == 1 else {
                X509_free(certificate.handle.raw)
                try OpenSSLCall.check(false, "SSL_CTX_add_extra_chain_cert")
                return
            }
        }
        try OpenSSLCall.check(
            status: SSL_CTX_check_private_key(raw), "SSL_CTX_check_private_key",
            kind: .keyMismatch, "the private key does not match the certificate in \(identity.source)")
    }

    /// Adds the CAs of `trust` to the context's verification store.
    func trust(_ trust: TLSTrust) throws {
        switch trust {
        case .system:
            try OpenSSLCall.check(status: SSL_CTX_set_default_verify_paths(raw), "SSL_CTX_set_default_verify_paths")
        case .caFile(let path):
            _ = try CredentialFile.readBytes(path)
            try OpenSSLCall.check(
                status: SSL_CTX_load_verify_file(raw, path), "SSL_CTX_load_verify_file",
                kind: .invalidPEM, "no usable CA certificate in \(path)")
        case .caPEM(let pem):
            let store = try OpenSSLCall.check(SSL_CTX_get_cert_store(raw), "SSL_CTX_get_cert_store")
            for certificate in try TLSCertificate.all(pem: pem) {
                try OpenSSLCall.check(status: X509_STORE_add_cert(store, certificate.handle.raw), "X509_STORE_add_cert")
            }
        }
    }

    /// Offers `protocols` by ALPN (client side).
    func offerALPN(_ protocols: [String]) throws {
        guard !protocols.isEmpty else { return }
        let wire = try ALPNPreferences(protocols).wireFormat
        // Unlike most of OpenSSL, this returns 0 on success.
        try OpenSSLCall.check(SSL_CTX_set_alpn_protos(raw, wire, UInt32(wire.count)) == 0, "SSL_CTX_set_alpn_protos")
    }

    /// Selects among the client's ALPN offers by `protocols`' order (server side).
    func selectALPN(_ protocols: [String]) throws {
        guard !protocols.isEmpty else { return }
        try ALPNPreferences(protocols).install(on: raw)
    }

    /// Sets how the peer's certificate is verified.
    func verify(peer: Bool, requireCertificate: Bool = false, acceptAny: Bool = false) {
        var mode = peer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE
        if requireCertificate { mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT }
        if acceptAny {
            // Ask for a certificate but let the handshake go on whatever it is; the verification
            // outcome stays readable through `SSL_get_verify_result`.
            SSL_CTX_set_verify(raw, mode) { _, _ in 1 }
        } else {
            SSL_CTX_set_verify(raw, mode, nil)
        }
    }

    /// Servers that verify clients need a session id context for resumption to work.
    func setSessionIDContext(_ name: String) throws {
        let bytes = Array(name.utf8)
        try OpenSSLCall.check(
            status: SSL_CTX_set_session_id_context(raw, bytes, UInt32(bytes.count)),
            "SSL_CTX_set_session_id_context")
    }
}
