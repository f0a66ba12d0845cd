public import APNSCore
import PushHTTP2
import PushIO
import PushSync
import Synchronization

extension APNSClient {
    /// Sends one broadcast to every device subscribed to its channel, on the client's connections to
    /// the normal APNs host (Apple, "Sending broadcast push notification requests to APNs").
    ///
    /// Returns `.accepted` (200; `apnsID` is the echoed `apns-request-id`, `uniqueID` Apple's
    /// `apns-unique-id`) or `.rejected` with Apple's reason (`ChannelNotRegistered`, `BadChannelId`,
    /// `BadExpirationDate`, …; ``APNSBroadcast/validate(storagePolicy:)`` lists the local checks, made
    /// when ``APNSClientConfiguration/validatesLocally`` is on). Throws ``APNSTransportError`` when no
    /// answer came. Like ``send(_:)`` it waits for a free pending slot, resends a broadcast APNs never
    /// processed (GOAWAY, refused stream) and refreshes the provider token once after 403
    /// ExpiredProviderToken; 429 and 5xx answers are outcomes the caller retries.
    public func send(_ broadcast: APNSBroadcast) async throws -> APNSOutcome {
        if let rejection = rejectedLocally({ broadcast.validate() }) { return .rejected(rejection) }
        return try await send(request: broadcastRequest(broadcast))
    }

    /// The HTTP/2 request of `broadcast` for this client's environment (no `authorization` yet).
    func broadcastRequest(_ broadcast: APNSBroadcast) -> HTTP2Request {
        HTTP2Request(
            authority: configuration.environment.host, path: broadcast.path, headers: broadcast.headerFields(),
            body: broadcast.payload)
    }

    /// Sends a prepared request through the dispatcher, like ``send(_:)`` does for notifications.
    func send(request: HTTP2Request) async throws -> APNSOutcome {
        guard !closed.load(ordering: .relaxed) else { throw APNSTransportError(.shutdown, "client is shut down") }
        guard await permits.acquire() else { throw APNSTransportError(.cancelled, "cancelled while waiting to send") }
        defer { permits.release() }
        let id = nextID.add(1, ordering: .relaxed).newValue
        let started = ContinuousClock.now
        let deadline = started + configuration.requestTimeout
        let dispatcher = self.dispatcher
        let loop = self.loop
        let inbox = self.inbox
        // An unsafe continuation (no checking object per call): APNSSend.deliver resumes it exactly once.
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                inbox.post(
                    APNSSend(
                        id: id, request: request, started: started, deadline: deadline,
                        receiver: .continuation(continuation)))
            }
        } onCancel: {
            loop.execute { dispatcher.value.cancel(id: id) }
        }
    }
}
