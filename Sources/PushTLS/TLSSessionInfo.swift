/// What a finished handshake agreed on.
public struct TLSSessionInfo: Sendable {
    /// The ALPN protocol selected, e.g. "h2", or nil when none was.
    public var alpn: String?
    /// The certificate the peer presented, if any.
    public var peerCertificate: TLSCertificate?
    /// The protocol version, e.g. "TLSv1.3".
    public var protocolVersion: String
    /// OpenSSL's verification result (`X509_V_OK` is 0).
    public var verifyResult: Int

    /// Creates session facts (tests and wrappers use this).
    public init(alpn: String?, peerCertificate: TLSCertificate?, protocolVersion: String, verifyResult: Int) {
        self.alpn = alpn
        self.peerCertificate = peerCertificate
        self.protocolVersion = protocolVersion
        self.verifyResult = verifyResult
    }
}
