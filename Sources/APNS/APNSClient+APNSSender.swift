public import APNSCore

/// The client is an ``APNSCore/APNSSender``: `send`, `send(batch:deliver:)`, `send(broadcasts:deliver:)`
/// and `shutdown(deadline:)` are its own; its connections are read off ``APNSClient/statistics()``.
extension APNSClient: APNSSender {
    /// The client's ready connections and open streams.
    public func connectionState() async -> APNSSenderConnections? {
        let statistics = await statistics()
        return APNSSenderConnections(ready: statistics.readyConnections, openStreams: statistics.openStreams)
    }
}
