/// Settings for a server-side `TLSContext`.
public struct TLSServerConfiguration: Sendable {
    /// The certificate and key the server presents.
    public var identity: TLSIdentity
    /// Whether and how clients must present certificates.
    public var clientCertificates: ClientCertificatePolicy
    /// ALPN protocols the server accepts, most preferred first.
    public var alpn: [String]

    /// Creates a configuration; TLS 1.2 is always the minimum.
    public init(identity: TLSIdentity, clientCertificates: ClientCertificatePolicy = .none, alpn: [String] = ["h2"]) {
        self.identity = identity
        self.clientCertificates = clientCertificates
        self.alpn = alpn
    }
}
