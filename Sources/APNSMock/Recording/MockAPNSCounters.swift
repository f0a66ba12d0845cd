public import APNSCore

/// Running totals of a mock server since start or the last `reset()`.
public struct MockAPNSCounters: Sendable, Hashable {
    /// Notifications answered 200 (counted in accept-all mode too).
    public var accepted = 0
    /// Notifications answered with an error.
    public var rejected = 0
    /// Rejections per reason.
    public var rejectedByReason: [APNSRejectionReason: Int] = [:]
    /// Requests received whole, including any cut off by an abrupt close.
    public var streams = 0
    /// Connections accepted.
    public var connections = 0
    /// Connections open now.
    public var openConnections = 0
    /// GOAWAY frames sent (after N streams, idle timeout, stop).
    public var goAwaysSent = 0
    /// Connections dropped with a TCP reset.
    public var aborts = 0
    /// The most streams seen open at once on one connection.
    public var maxObservedConcurrentStreams = 0

    /// All zero.
    public init() {}
}
