/// A send that ended without an answer from APNs. A rejection by APNs is not an error: it is an
/// ``APNSCore/APNSOutcome``.
public struct APNSTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is known about the notification's fate.
    public enum Kind: String, Sendable {
        /// APNs never received it: safe to send again.
        case notSent
        /// The connection broke while the notification was on the wire: APNs may have delivered it.
        case outcomeUnknown
        /// No answer within the request timeout after it was written: APNs may have delivered it. (A send
        /// the timeout catches before it was written ends ``notSent``.)
        case timeout
        /// The client is shutting down.
        case shutdown
        /// The task was cancelled before the notification was written.
        case cancelled
        /// The configured proxy refused the tunnel to APNs (wrong or missing credentials, or APNs is a
        /// target it forbids): a configuration error. Nothing was sent.
        case proxyRefused
    }

    /// The class of failure.
    public let kind: Kind
    /// A human line.
    public let message: String

    /// An error of `kind`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// True when sending again cannot duplicate the notification.
    public var isSafeToRetry: Bool { kind == .notSent || kind == .cancelled || kind == .shutdown || kind == .proxyRefused }

    /// `kind: message`.
    public var description: String { "\(kind.rawValue): \(message)" }
}
