public import APNSCore
import PushHTTP2
import PushIO

/// One notification on its way through the dispatcher: made on the caller's task and handed over whole
/// (`sending`) to the client's loop, the only thread that touches it afterwards. Not `Sendable`.
final class APNSSend {
    /// Where the outcome goes: a suspended `send` call, or one slot of a batch.
    enum Receiver {
        case continuation(UnsafeContinuation<APNSOutcome, any Error>)
        case batch(APNSBatchSink, index: Int)
    }

    let id: UInt64
    let request: HTTP2Request
    let started: ContinuousClock.Instant
    let deadline: ContinuousClock.Instant
    var resends = 0
    /// The provider JWT of the last write (token auth only).
    var jwt: String?
    /// Whether the token was already replaced once after 403 ExpiredProviderToken.
    var refreshedToken = false
    var timedOut = false
    private var receiver: Receiver?
    var connection: HTTP2ClientConnection?
    var handle: Int64 = 0

    init(id: UInt64, request: HTTP2Request, started: ContinuousClock.Instant, deadline: ContinuousClock.Instant, receiver: Receiver) {
        self.id = id
        self.request = request
        self.started = started
        self.deadline = deadline
        self.receiver = receiver
    }

    /// Hands the outcome to its receiver, once; later calls do nothing.
    func deliver(_ result: Result<APNSOutcome, APNSTransportError>) {
        guard let receiver else { return }
        self.receiver = nil
        switch receiver {
        case .continuation(let continuation): continuation.resume(with: result.mapError { $0 as any Error })
        case .batch(let sink, let index): sink.add(index: index, result: result)
        }
    }
}

/// One result of ``APNSClient/send(batch:deliver:)``: the notification's position in the batch and its outcome.
public struct APNSBatchResult: Sendable {
    /// Index into the batch that was sent.
    public var index: Int
    /// APNs' answer, or why none came.
    public var result: Result<APNSOutcome, APNSTransportError>

    /// A result for position `index`.
    public init(index: Int, result: Result<APNSOutcome, APNSTransportError>) {
        self.index = index
        self.result = result
    }
}

/// Collects the results of one batch on the loop thread and hands them on in chunks: the results that
/// arrive during one loop turn go out together, on a job queued behind that turn's work.
///
/// Made with its batch's sends and handed over with them; then confined to `loop`'s thread (not
/// `Sendable`: its flush job carries it in a ``LoopBound``).
final class APNSBatchSink {
    private let loop: EventLoop
    private let deliver: @Sendable ([APNSBatchResult]) -> Void
    private let release: @Sendable (Int) -> Void
    private var collected: [APNSBatchResult] = []
    private var scheduled = false

    init(loop: EventLoop, deliver: @escaping @Sendable ([APNSBatchResult]) -> Void, release: @escaping @Sendable (Int) -> Void) {
        self.loop = loop
        self.deliver = deliver
        self.release = release
    }

    func add(index: Int, result: Result<APNSOutcome, APNSTransportError>) {
        collected.append(APNSBatchResult(index: index, result: result))
        guard !scheduled else { return }
        scheduled = true
        let sink = LoopBound(self, loop: loop)
        loop.execute { sink.value.flush() }
    }

    private func flush() {
        scheduled = false
        let chunk = collected
        collected = []
        guard !chunk.isEmpty else { return }
        release(chunk.count)
        deliver(chunk)
    }
}
