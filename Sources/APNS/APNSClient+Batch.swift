public import APNSCore
import PushHTTP2
import PushIO
import PushSync
import Synchronization

extension APNSClient {
    /// Sends many broadcasts with one hand-over to the client's loop, as ``send(batch:deliver:)`` does for
    /// notifications: returns once they are handed over, and `deliver` receives every broadcast's result
    /// exactly once, in chunks, on the loop thread. Local rejections (``APNSBroadcast/validate(storagePolicy:)``,
    /// when ``APNSClientConfiguration/validatesLocally`` is on) come first.
    public func send(
        broadcasts: [APNSBroadcast],
        deliver: @escaping @Sendable ([APNSBatchResult]) -> Void
    ) async {
        await submit(broadcasts, validate: { $0.validate() }, request: broadcastRequest, deliver: deliver)
    }

    /// Checks each of `items` locally (``rejectedLocally(_:)``; a rejection becomes that item's result) and
    /// hands the rest, as `request` builds them, to ``submit(_:local:deliver:)``.
    func submit<Item>(
        _ items: [Item], validate: (Item) -> APNSRejection?, request: (Item) -> HTTP2Request,
        deliver: @escaping @Sendable ([APNSBatchResult]) -> Void
    ) async {
        guard !items.isEmpty else { return }
        var local: [APNSBatchResult] = []
        var requests: [(index: Int, request: HTTP2Request)] = []
        requests.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            if let rejection = rejectedLocally({ validate(item) }) {
                local.append(APNSBatchResult(index: index, delivery: .rejected(rejection)))
            } else {
                requests.append((index, request(item)))
            }
        }
        await submit(requests, local: local, deliver: deliver)
    }

    /// Hands the results already known (`local`) to `deliver`, then `requests` to the dispatcher in one
    /// loop job, waiting first for as many pending-send permits; every request's result reaches
    /// `deliver` exactly once.
    func submit(
        _ requests: [(index: Int, request: HTTP2Request)], local: [APNSBatchResult],
        deliver: @escaping @Sendable ([APNSBatchResult]) -> Void
    ) async {
        if !local.isEmpty { deliver(local) }
        guard !requests.isEmpty else { return }
        func failAll(_ error: APNSTransportError) {
            deliver(requests.map { APNSBatchResult(index: $0.index, delivery: .failed(error)) })
        }
        guard !closed.load(ordering: .relaxed) else { return failAll(APNSTransportError(.shutdown, "client is shut down")) }
        let granted = await permits.acquire(count: requests.count)
        guard granted == requests.count else {
            permits.release(count: granted)
            return failAll(APNSTransportError(.cancelled, "cancelled while waiting to send"))
        }
        let permits = self.permits
        let sink = APNSBatchSink(loop: loop, deliver: deliver, release: { permits.release(count: $0) })
        let started = ContinuousClock.now
        let deadline = started + configuration.requestTimeout
        let last = nextID.add(UInt64(requests.count), ordering: .relaxed).newValue
        var id = last - UInt64(requests.count)
        var sends: [APNSSend] = []
        sends.reserveCapacity(requests.count)
        for (index, request) in requests {
            id += 1
            sends.append(
                APNSSend(
                    id: id, request: request, started: started, deadline: deadline,
                    receiver: .batch(sink, index: index)))
        }
        let dispatcher = self.dispatcher
        let batch = LoopBound(handingOver: sends, to: loop)
        loop.execute { dispatcher.value.submit(batch.value) }
    }
}
