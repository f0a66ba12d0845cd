public import APNSCore

/// The fault knobs a running mock server reads for every request; change them with
/// `MockAPNSServer.updateKnobs(_:)` (or the control API's `PATCH /knobs`). A change applies from the next
/// request on, on connections already open too. They start from the server's `Configuration`.
public struct MockAPNSKnobs: Sendable, Hashable {
    /// Send GOAWAY once a connection has carried this many requests (at its next request when it
    /// already carried more); nil never.
    public var goAwayAfterStreams: Int?
    /// The reason in that GOAWAY's debug data, `{"reason":"…"}`.
    public var goAwayReason: APNSRejectionReason
    /// Reset the TCP connection when request N+1 arrives on it (the first N are answered); nil never.
    public var abruptCloseAfterStreams: Int?
    /// Reset the connection carrying every N-th request, counted across all connections; nil never.
    public var abruptCloseEveryStreams: Int?
    /// Chances of 429/500/503 for otherwise accepted notifications.
    public var faultRates: MockFaultRates
    /// SETTINGS_MAX_CONCURRENT_STREAMS announced to clients (sent to open connections when it changes).
    public var maxConcurrentStreams: Int
    /// Delay before each answer (a matching rule's own delay takes precedence).
    public var latency: MockLatency
    /// Whether accepted device notifications are answered with `apns-unique-id`, as the sandbox does and
    /// production does not (Apple's "Sending notification requests to APNs"); it starts as the server's
    /// environment says. Broadcasts always carry one.
    public var sendsUniqueIDs: Bool

    /// Knobs with the given values.
    public init(
        goAwayAfterStreams: Int? = nil, goAwayReason: APNSRejectionReason = .shutdown,
        abruptCloseAfterStreams: Int? = nil, abruptCloseEveryStreams: Int? = nil,
        faultRates: MockFaultRates = .none, maxConcurrentStreams: Int = 1000, latency: MockLatency = .none,
        sendsUniqueIDs: Bool = true
    ) {
        self.goAwayAfterStreams = goAwayAfterStreams
        self.goAwayReason = goAwayReason
        self.abruptCloseAfterStreams = abruptCloseAfterStreams
        self.abruptCloseEveryStreams = abruptCloseEveryStreams
        self.faultRates = faultRates
        self.maxConcurrentStreams = maxConcurrentStreams
        self.latency = latency
        self.sendsUniqueIDs = sendsUniqueIDs
    }

    /// The knobs a configuration starts with.
    public init(_ configuration: MockAPNSServer.Configuration) {
        self.init(
            goAwayAfterStreams: configuration.goAwayAfterStreams, goAwayReason: configuration.goAwayReason,
            abruptCloseAfterStreams: configuration.abruptCloseAfterStreams,
            abruptCloseEveryStreams: configuration.abruptCloseEveryStreams,
            faultRates: configuration.faultRates, maxConcurrentStreams: configuration.maxConcurrentStreams,
            latency: configuration.latency, sendsUniqueIDs: configuration.environment == .development)
    }
}
