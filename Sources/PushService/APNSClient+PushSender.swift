import APNSCore
import APNS

/// The real APNs client is a `PushSender`: `send` and `shutdown(deadline:)` already match.
extension APNSClient: PushSender {
    /// Hands the batch to the client's loop in one go (see `APNSClient.send(batch:deliver:)`).
    public func send(batch notifications: [APNSNotification], deliver: @escaping @Sendable ([PushSendResult]) -> Void) async {
        await send(batch: notifications) { (results: [APNSBatchResult]) in
            deliver(results.map { PushSendResult(index: $0.index, result: $0.result.mapError { $0 as any Error }) })
        }
    }

    /// The client's ready connections and open streams.
    public func connectionState() async -> PushSenderConnections? {
        let statistics = await statistics()
        return PushSenderConnections(ready: statistics.readyConnections, openStreams: statistics.openStreams)
    }
}
