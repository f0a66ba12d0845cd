/// Settings for a client-side `TLSContext`.
public struct TLSClientConfiguration: Sendable {
    /// The certificate and key to present (APNs certificate auth), or nil.
    public var identity: TLSIdentity?
    /// The CAs to verify the server against.
    public var trust: TLSTrust
    /// Whether to verify the server's certificate and name.
    public var verifyPeer: Bool
    /// ALPN protocols offered, most preferred first.
    public var alpn: [String]

    /// Creates a configuration; TLS 1.2 is always the minimum.
    public init(identity: TLSIdentity? = nil, trust: TLSTrust = .system, verifyPeer: Bool = true, alpn: [String] = ["h2"]) {
        self.identity = identity
        self.trust = trust
        self.verifyPeer = verifyPeer
        self.alpn = alpn
    }
}
