public import APNS
import APNSCore

/// The real APNs client is a `PushSender`: `send`, `send(batch:deliver:)` (its results are the outbox's
/// input as they are) and `shutdown(deadline:)` already match.
extension APNSClient: PushSender {
    /// The client's ready connections and open streams.
    public func connectionState() async -> PushSenderConnections? {
        let statistics = await statistics()
        return PushSenderConnections(ready: statistics.readyConnections, openStreams: statistics.openStreams)
    }
}
