public import APNSCore
public import Foundation
import PushHTTP2
public import PushIO
public import PushTLS

/// An egress proxy for APNs connections: HTTP CONNECT (`http://user:pass@host:port`) or SOCKS5
/// (`socks5://user:pass@host:port`). Build one with `try APNSProxy(url:)`.
public typealias APNSProxy = IOProxy

/// Everything an ``APNSClient`` needs: credentials, where APNs is, and how to behave under load.
public struct APNSClientConfiguration: Sendable {
    /// How the client proves who it is.
    public enum Credentials: Sendable {
        /// A `.p12` file (modern or legacy encryption) and its password.
        case pkcs12(path: String, password: String)
        /// A PEM certificate and a PEM private key.
        case pem(certificatePath: String, keyPath: String)
        /// An identity already loaded.
        case identity(TLSIdentity)
        /// Token-based auth: a `.p8` signing key with its key and team ids. TLS then presents no client
        /// certificate and each request carries `authorization: bearer <jwt>` from a token provider the
        /// client's connections share (one per client, so one per team).
        case token(APNSTokenCredentials)
        /// Token-based auth with a provider shared with other clients of the same team (for example a
        /// production and a development client), so the team has one token at a time.
        case tokenProvider(APNSTokenProvider)
    }

    /// The client certificate or the provider token.
    public var credentials: Credentials
    /// Production, development, or a custom host (the mock server).
    public var environment: APNSEnvironment
    /// How many HTTP/2 connections to keep; sends are spread across them.
    public var connections: Int = 1
    /// A CA (PEM) to trust instead of the system store, for `.custom` environments.
    public var trustedCAPEM: String?
    /// Reach APNs through this proxy (nil: directly). TLS runs inside the tunnel with APNs' host name for
    /// SNI and certificate verification, so the proxy never sees the notifications. A proxy that refuses
    /// the tunnel (407, 403, SOCKS5 authentication) fails sends with ``APNSTransportError/Kind/proxyRefused``.
    public var proxy: APNSProxy?
    /// The most sends waiting or in flight at once; further `send` calls wait (backpressure).
    public var maxPendingRequests: Int = 10_000
    /// How long a send may take from the call to the answer before it ends with a timeout.
    public var requestTimeout: Duration = .seconds(30)
    /// Time allowed to open a connection (TCP, the proxy's tunnel, TLS, first SETTINGS).
    public var connectTimeout: Duration = .seconds(10)
    /// Send a keep-alive PING after this long idle.
    public var pingInterval: Duration? = .seconds(60)
    /// Close a connection after this long without any send (Apple prefers long-lived ones).
    public var idleTimeout: Duration? = .seconds(3600)
    /// Our own ceiling on concurrent streams per connection (the server's limit applies too).
    public var maxConcurrentStreams: Int = 1000
    /// First reconnect delay after a failed connection; doubles up to ``maxReconnectDelay``.
    public var initialReconnectDelay: Duration = .seconds(1)
    /// Largest reconnect delay.
    public var maxReconnectDelay: Duration = .seconds(60)
    /// When a TLS connection cannot be set up (the handshake fails, e.g. the server refuses the client
    /// certificate) and no other connection is ready: fail the sends waiting for one, and new sends, at once
    /// with ``APNSTransportError/Kind/notSent`` until the reconnect back-off allows another attempt, instead
    /// of letting them wait for the request timeout. Off by default; push-server turns it on so an app
    /// whose certificate is refused holds none of the service's in-flight slots.
    public var failsFastOnHandshakeFailure = false
    /// How often a notification that was never processed (GOAWAY, refused stream) is resent.
    public var maxResends: Int = 5
    /// Check notifications locally before sending (Apple's rules for size, priority, collapse id...).
    public var validatesLocally: Bool = true
    /// Receives counters and timings; the default does nothing.
    public var metrics: any APNSClientMetrics = NoAPNSClientMetrics()
    /// The wall clock token auth reads (the JWT's `iat` and its age); inject one in tests.
    public var clock: @Sendable () -> Date = Date.init

    /// A configuration with the given credentials and environment and default behaviour.
    public init(credentials: Credentials, environment: APNSEnvironment, connections: Int = 1, trustedCAPEM: String? = nil) {
        self.credentials = credentials
        self.environment = environment
        self.connections = connections
        self.trustedCAPEM = trustedCAPEM
    }

    /// Loads the identity the credentials name; nil for token auth (no client certificate).
    func loadIdentity() throws -> TLSIdentity? {
        switch credentials {
        case .pkcs12(let path, let password): try TLSIdentity(p12Path: path, password: password)
        case .pem(let certificatePath, let keyPath): try TLSIdentity(certificatePEMPath: certificatePath, keyPEMPath: keyPath)
        case .identity(let identity): identity
        case .token, .tokenProvider: nil
        }
    }

    /// The token provider for token auth (a new one per call for `.token`), else nil.
    func makeTokenProvider() throws -> APNSTokenProvider? {
        switch credentials {
        case .token(let token): try APNSTokenProvider(credentials: token, clock: clock)
        case .tokenProvider(let provider): provider
        case .pkcs12, .pem, .identity: nil
        }
    }

    /// The client TLS context: the credentials' certificate (none with token auth, where TLS authenticates
    /// the server only and the JWT proves who we are) and ``trustedCAPEM`` when set.
    func makeTLSContext() throws -> TLSContext {
        var tls = TLSClientConfiguration(identity: try loadIdentity())
        if let ca = trustedCAPEM { tls.trust = .caPEM(ca) }
        return try TLSContext.client(tls)
    }

    /// The settings of one HTTP/2 connection to ``environment`` over `tls`: proxy, connect timeout,
    /// keep-alive pings and idle timeout.
    func connectionSettings(tls: TLSContext) -> HTTP2ClientConnection.Configuration {
        var settings = HTTP2ClientConnection.Configuration(host: environment.host, port: environment.port, tls: tls)
        settings.proxy = proxy
        settings.connectTimeout = connectTimeout
        settings.pingInterval = pingInterval
        settings.idleTimeout = idleTimeout
        return settings
    }
}
