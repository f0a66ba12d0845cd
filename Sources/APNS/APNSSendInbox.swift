import PushIO
import PushSync

/// Sends handed over by callers of ``APNSClient/send(_:)`` on their own threads, waiting for the loop.
///
/// One loop job takes everything posted since the last one: concurrent callers cost one wake-up of the
/// loop thread per loop turn instead of one closure and one job each, and the dispatcher routes them
/// together and writes each connection once. A job is queued only when the inbox turns non-empty, so a
/// job queued later on the loop (a cancellation) always runs after the job that takes an earlier post.
final class APNSSendInbox: Sendable {
    private let loop: EventLoop
    private let dispatcher: LoopBound<APNSDispatcher>
    private let posted = PThreadLock(Posted())

    private struct Posted {
        var sends: [APNSSend] = []
        var spare: [APNSSend] = []
        var scheduled = false
    }

    /// An inbox feeding `dispatcher` on `loop`.
    init(loop: EventLoop, dispatcher: LoopBound<APNSDispatcher>) {
        self.loop = loop
        self.dispatcher = dispatcher
    }

    /// Queues `send` for the loop, which uses it from then on (`sending`: the caller keeps no reference).
    /// Safe from any thread.
    func post(_ send: sending APNSSend) {
        let schedule = posted.withLock { posted -> Bool in
            posted.sends.append(send)
            guard !posted.scheduled else { return false }
            posted.scheduled = true
            return true
        }
        if schedule { loop.execute { [self] in drain() } }
    }

    /// On the loop thread: hands every posted send to the dispatcher at once.
    private func drain() {
        var batch = posted.withLock { posted -> [APNSSend] in
            posted.scheduled = false
            var taken = posted.spare
            swap(&taken, &posted.sends)
            return taken
        }
        dispatcher.value.submit(batch)
        batch.removeAll(keepingCapacity: true)
        // Give the emptied buffer back so the next turn appends without growing a new one.
        posted.withLock { posted in if posted.spare.capacity < batch.capacity { posted.spare = batch } }
    }
}
