/// Which certificate authorities a TLS peer trusts.
public enum TLSTrust: Sendable, Equatable {
    /// The operating system's CA store (`SSL_CTX_set_default_verify_paths`).
    case system
    /// The certificates in a PEM file.
    case caFile(String)
    /// The certificates in PEM text.
    case caPEM(String)
}

/// Whether a TLS server asks its clients for certificates.
public enum ClientCertificatePolicy: Sendable, Equatable {
    /// Do not ask.
    case none
    /// Ask, accept any certificate (or none); inspect it with `TLSSessionInfo`.
    case request
    /// Ask and refuse the handshake unless a certificate chaining to `trust` is presented.
    case require(trust: TLSTrust)
}
