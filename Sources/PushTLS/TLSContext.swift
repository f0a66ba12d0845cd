internal import COpenSSL
import Foundation

/// An immutable OpenSSL context (`SSL_CTX`) from which connections are made; build it once, share it.
public final class TLSContext: Sendable {
    /// The owned `SSL_CTX`.
    let handle: SSLContextHandle
    /// True for a server context, false for a client one.
    public let isServer: Bool
    /// Whether peers are verified (clients; servers verify per `ClientCertificatePolicy`).
    public let verifiesPeer: Bool
    /// The ALPN protocols offered or accepted, most preferred first.
    public let alpn: [String]

    private init(handle: SSLContextHandle, isServer: Bool, verifiesPeer: Bool, alpn: [String]) {
        self.handle = handle
        self.isServer = isServer
        self.verifiesPeer = verifiesPeer
        self.alpn = alpn
    }

    /// A client context: TLS 1.2+, ALPN offer, optional client certificate, trust and verification.
    public static func client(_ configuration: TLSClientConfiguration) throws -> TLSContext {
        OpenSSLRuntime.ensureInitialized()
        let handle = try SSLContextHandle(server: false)
        if let identity = configuration.identity {
            try handle.use(identity)
        }
        try handle.trust(configuration.trust)
        handle.verify(peer: configuration.verifyPeer)
        try handle.offerALPN(configuration.alpn)
        return TLSContext(
            handle: handle, isServer: false, verifiesPeer: configuration.verifyPeer,
            alpn: configuration.alpn)
    }

    /// A server context: TLS 1.2+, its identity, ALPN selection and the client certificate policy.
    public static func server(_ configuration: TLSServerConfiguration) throws -> TLSContext {
        OpenSSLRuntime.ensureInitialized()
        let handle = try SSLContextHandle(server: true)
        try handle.use(configuration.identity)
        try handle.setSessionIDContext("PushTLS")
        let verifies: Bool
        switch configuration.clientCertificates {
        case .none:
            handle.verify(peer: false)
            verifies = false
        case .request:
            handle.verify(peer: true, acceptAny: true)
            verifies = false
        case .require(let trust):
            try handle.trust(trust)
            handle.verify(peer: true, requireCertificate: true)
            verifies = true
        }
        try handle.selectALPN(configuration.alpn)
        return TLSContext(handle: handle, isServer: true, verifiesPeer: verifies, alpn: configuration.alpn)
    }

    /// The `SSL_CTX*`, for PushIO only. It stays owned by this object.
    package var rawContext: OpaquePointer {
        handle.raw
    }
}
