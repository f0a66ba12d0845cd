/// A transport failure: connecting, resolving, TLS, or a connection that ended.
public struct IOError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, coarsely.
    public enum Kind: String, Sendable {
        /// The host name did not resolve.
        case resolve
        /// TCP connect failed (refused, unreachable).
        case connect
        /// TLS handshake or certificate verification failed.
        case tls
        /// The peer closed the connection.
        case closed
        /// The connection broke (reset, read or write error).
        case broken
        /// A deadline passed.
        case timeout
        /// Binding a listening socket failed.
        case bind
        /// The proxy could not open the tunnel (it cannot reach the target, or answered nonsense); may pass.
        case proxy
        /// The proxy refused the tunnel for a reason retrying cannot fix: wrong or missing credentials
        /// (HTTP 407, SOCKS5 authentication), or a target it forbids (HTTP 403, SOCKS5 ruleset).
        case proxyRefused
    }

    /// The failure class.
    public let kind: Kind
    /// One human line saying what happened.
    public let message: String

    /// An error of `kind` with `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `kind: message`.
    public var description: String { "\(kind.rawValue): \(message)" }
}
