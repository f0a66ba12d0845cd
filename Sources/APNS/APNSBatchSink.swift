import APNSCore
import PushIO

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

    func add(index: Int, delivery: APNSDeliveryResult) {
        collected.append(APNSBatchResult(index: index, delivery: delivery))
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
