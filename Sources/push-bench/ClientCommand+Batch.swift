import APNS
import APNSCore
import Synchronization

extension ClientCommand {
    /// Sends `total` copies of `notification` through `send(batch:)`: chunks of `chunk` notifications are
    /// handed over one after another, and the client's pending-send limit (set to `inFlight` by the
    /// caller) keeps at most that many outstanding, as `-m` does for h2load. The sending task prefers
    /// `executor` (nil: none).
    static func sendBatches(
        _ client: APNSClient, _ notification: APNSNotification, total: Int, chunk: Int, executor: (any TaskExecutor)?
    ) async -> Tally {
        await withTaskExecutorPreference(executor) {
            await sendBatches(client, notification, total: total, chunk: chunk)
        }
    }

    private static func sendBatches(_ client: APNSClient, _ notification: APNSNotification, total: Int, chunk: Int) async -> Tally {
        let counts = BatchCounts()
        let (done, finished) = AsyncStream<Void>.makeStream()
        var sent = 0
        while sent < total {
            let count = min(chunk, total - sent)
            sent += count
            await client.send(batch: Array(repeating: notification, count: count)) { results in
                if counts.add(results, total: total) { finished.yield() }
            }
        }
        for await _ in done { break }
        return counts.tally
    }
}

/// Counts batch results as they arrive on the client's loop thread and says when all have come.
final class BatchCounts: Sendable {
    private let state = Mutex(ClientCommand.Tally())

    /// Adds a chunk of results; true once `total` results have been counted.
    func add(_ results: [APNSBatchResult], total: Int) -> Bool {
        state.withLock { tally in
            for item in results {
                switch item.delivery {
                case .accepted: tally.accepted += 1
                case .rejected: tally.rejected += 1
                case .failed(let error):
                    tally.errors += 1
                    if tally.firstError == nil { tally.firstError = String(describing: error) }
                }
            }
            return tally.accepted + tally.rejected + tally.errors == total
        }
    }

    /// The counts so far.
    var tally: ClientCommand.Tally { state.withLock { $0 } }
}
