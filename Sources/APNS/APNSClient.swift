public import APNSCore
import PushHTTP2
package import PushIO
import PushSync
import PushTLS
import Synchronization

/// An APNs client over HTTP/2: long-lived connections, Apple's stream limits, GOAWAY handling,
/// keep-alive, reconnect back-off and backpressure. Safe to share between tasks.
///
/// ```swift
/// let client = try APNSClient(configuration: .init(
///     credentials: .pkcs12(path: "push.p12", password: password), environment: .production))
/// let outcome = try await client.send(APNSNotification(
///     token: try DeviceToken(hex), topic: "com.example.app", payload: .alert("Woof")))
/// ```
public final class APNSClient: Sendable {
    /// The configuration the client was made with.
    public let configuration: APNSClientConfiguration
    /// The shared provider token source with token auth (one per client, so one per team), else nil.
    public let tokenProvider: APNSTokenProvider?
    let loop: EventLoop
    /// The client's event loop (its connections live there), for a watchdog that checks it still turns.
    package var eventLoop: EventLoop { loop }
    /// Every access checks it runs on `loop`'s thread.
    let dispatcher: LoopBound<APNSDispatcher>
    let inbox: APNSSendInbox
    let permits: AsyncSemaphore
    let nextID = Atomic<UInt64>(0)
    let closed = Atomic<Bool>(false)

    /// Loads the credentials and prepares TLS; connections open on the first send.
    public init(configuration: APNSClientConfiguration) throws {
        self.configuration = configuration
        let tls = try configuration.makeTLSContext()
        tokenProvider = try configuration.makeTokenProvider()
        loop = EventLoop(name: "apns-client")
        dispatcher = LoopBound(
            handingOver: APNSDispatcher(loop: loop, configuration: configuration, tls: tls, tokenProvider: tokenProvider), to: loop)
        inbox = APNSSendInbox(loop: loop, dispatcher: dispatcher)
        permits = AsyncSemaphore(permits: max(1, configuration.maxPendingRequests))
    }

    deinit {
        loop.shutdown()
    }

    /// The executor of the client's event-loop thread, for tasks that send through this client and do
    /// little else: a task that prefers it (`withTaskExecutorPreference(client.taskExecutor) { ... }`,
    /// `group.addTask(executorPreference: client.taskExecutor) { ... }`) runs its nonisolated code on the
    /// loop thread, so the answer to each ``send(_:)`` resumes it there, in the loop turn that read the
    /// answer, with no hand-over to another thread. Such tasks share one thread with the connections:
    /// keep blocking or long work (file or database I/O, heavy encoding) out of them.
    public var taskExecutor: any TaskExecutor { loop }

    /// Sends one notification. Returns `.accepted` or `.rejected` (a rejection by APNs, or by the same
    /// rules checked locally, is an outcome); throws ``APNSTransportError`` when no answer came.
    /// Waits while ``APNSClientConfiguration/maxPendingRequests`` sends are already pending.
    ///
    /// With token auth the `authorization` header is added when the request is written, from the shared
    /// ``APNSTokenProvider``. A 403 ExpiredProviderToken makes the client replace that token once and
    /// resend the notification once; a second ExpiredProviderToken, and 429 TooManyProviderTokenUpdates,
    /// come back as the outcome.
    public func send(_ notification: APNSNotification) async throws -> APNSOutcome {
        if let rejection = rejectedLocally({ notification.validate() }) { return .rejected(rejection) }
        return try await send(request: notificationRequest(notification))
    }

    /// The rejection `check` finds when ``APNSClientConfiguration/validatesLocally`` is on, counted as a
    /// rejected send; nil when it finds none or the client does not check.
    func rejectedLocally(_ check: () -> APNSRejection?) -> APNSRejection? {
        guard configuration.validatesLocally, let rejection = check() else { return nil }
        configuration.metrics.record(.rejected(reason: rejection.reason, latency: 0))
        return rejection
    }

    /// The HTTP/2 request of `notification` for this client's environment (no `authorization` yet).
    func notificationRequest(_ notification: APNSNotification) -> HTTP2Request {
        var fields = APNSRequestFields(authority: configuration.environment.host)
        return fields.request(notification)
    }

    /// Sends many notifications with one hand-over to the client's loop and returns once they are handed
    /// over (waiting first, like ``send(_:)``, while ``APNSClientConfiguration/maxPendingRequests`` sends
    /// are pending). `deliver` then receives every notification's result exactly once, in chunks: those
    /// that complete in the same loop turn come together, on the loop thread, so keep it short.
    ///
    /// The outcomes are those of ``send(_:)``: local rejections, APNs' answers and transport errors.
    public func send(
        batch notifications: [APNSNotification],
        deliver: @escaping @Sendable ([APNSBatchResult]) -> Void
    ) async {
        // The fields a push's notifications share are made once per run of notifications that agree on them.
        var fields = APNSRequestFields(authority: configuration.environment.host)
        await submit(notifications, validate: { $0.validate() }, request: { fields.request($0) }, deliver: deliver)
    }

    /// A snapshot of the client's connections and work.
    public func statistics() async -> APNSClientStatistics {
        let dispatcher = self.dispatcher
        let snapshot = try? await loop.submit {
            let dispatcher = dispatcher.value
            return APNSClientStatistics(
                readyConnections: dispatcher.readyConnections, openStreams: dispatcher.openStreams,
                inFlight: dispatcher.liveCount)
        }
        return snapshot ?? APNSClientStatistics(readyConnections: 0, openStreams: 0, inFlight: 0)
    }

    /// Stops taking sends, lets those in flight finish for up to `deadline`, then closes the
    /// connections with GOAWAY and stops the event loop. Later sends throw `.shutdown`.
    public func shutdown(deadline: Duration = .seconds(10)) async {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        let dispatcher = self.dispatcher
        loop.execute { dispatcher.value.beginShutdown() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [loop] in
                await withCheckedContinuation { continuation in loop.execute { dispatcher.value.waitForDrain(continuation) } }
            }
            group.addTask { try? await Task.sleep(for: deadline) }
            await group.next()
            group.cancelAll()
        }
        loop.execute { dispatcher.value.closeConnections() }
        try? await loop.submit {}
        loop.shutdown()
    }
}

/// What an ``APNSClient`` is doing right now.
public struct APNSClientStatistics: Sendable, Equatable {
    /// Connections ready to send.
    public let readyConnections: Int
    /// Streams open across connections.
    public let openStreams: Int
    /// Sends waiting or in flight.
    public let inFlight: Int
}
