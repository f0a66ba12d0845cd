public import APNSCore

/// Something that happened inside an ``APNSClient``, for metrics.
public enum APNSClientEvent: Sendable {
    /// A notification was written to a stream.
    case sent
    /// APNs accepted one; `latency` in seconds from the `send` call.
    case accepted(latency: Double)
    /// APNs (or local validation) rejected one.
    case rejected(reason: APNSRejectionReason, latency: Double)
    /// A never-processed notification was resent on another connection.
    case resent
    /// A send ended with a transport error.
    case failed(APNSTransportError.Kind)
    /// A connection became ready.
    case connectionOpened
    /// A connection closed; `error` is nil for an orderly close.
    case connectionClosed(error: String?)
}

/// Receives an ``APNSClient``'s events. Called from the client's event-loop thread: keep it quick.
public protocol APNSClientMetrics: Sendable {
    /// Records one event.
    func record(_ event: APNSClientEvent)
}

/// Metrics that go nowhere (the default).
public struct NoAPNSClientMetrics: APNSClientMetrics {
    /// Creates the no-op recorder.
    public init() {}
    /// Does nothing.
    public func record(_ event: APNSClientEvent) {}
}
