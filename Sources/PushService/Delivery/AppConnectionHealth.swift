import PushSync

/// Whether an app's clients can reach APNs, per environment, from their connection events: the last
/// connection that failed (TLS refused, proxy refused, unreachable) makes the environment unreachable
/// until a connection opens again. Thread-safe (written from the clients' loops, read by `/healthz`).
public final class AppConnectionHealth: Sendable {
    private let errors = PThreadLock<[String: String]>([:])

    /// No failure seen.
    public init() {}

    /// A connection to `environment` opened: it is reachable.
    public func opened(_ environment: String) {
        errors.withLock { $0[environment] = nil }
    }

    /// A connection to `environment` failed with `error`.
    public func failed(_ environment: String, _ error: String) {
        errors.withLock { $0[environment] = error }
    }

    /// The last connection failure of each environment with no connection open since.
    public var failures: [String: String] {
        errors.withLock { $0 }
    }
}
