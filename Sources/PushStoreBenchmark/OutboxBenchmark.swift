import APNSCore
public import Foundation
public import PushStore
import PushStoreSQL

/// A throughput probe for `make bench`: enqueue + claim + complete cycles per second on a real store.
public enum OutboxBenchmark {
    /// What one run measured.
    public struct Result: Sendable, CustomStringConvertible {
        /// Notifications that went through enqueue, claim and complete.
        public var cycles: Int
        /// Wall-clock seconds taken.
        public var seconds: Double
        /// `cycles / seconds`.
        public var cyclesPerSecond: Double { seconds > 0 ? Double(cycles) / seconds : 0 }
        /// One line for the benchmark report.
        public var description: String {
            "outbox: \(cycles) enqueue+claim+complete cycles in \(String(format: "%.3f", seconds)) s = "
                + "\(Int(cyclesPerSecond)) cycles/s"
        }
    }

    /// Runs `total` cycles in batches of `batchSize` (one transaction each for enqueue, claim and
    /// complete) against the database at `path` (a file, to include WAL writes).
    public static func run(path: String, total: Int = 200_000, batchSize: Int = 1_000, shape: Shape = .rows) async throws -> Result {
        try await run(
            outbox: SQLiteOutboxRepository(database: try SQLiteDatabase(path: path)), total: total, batchSize: batchSize, shape: shape)
    }

    /// What a batch is made of.
    public enum Shape: String, Sendable {
        /// Notifications each with an id of its own, answered as the sandbox answers (an `apns-unique-id`
        /// each): one stored row per notification, the outbox's cost before a push was stored once, and
        /// what B9 and B10 are measured against.
        case rows
        /// One push as the API makes one (its notifications' ids derived from one base, each sent as its own
        /// apns-id), accepted as production APNs answers (no `apns-unique-id`): a push stored once, and no
        /// row for an accepted notification.
        case push
    }

    /// Runs `total` cycles in batches of `batchSize` against `store` (any backend, e.g. a
    /// `PostgresOutboxRepository`), from one worker. Its rows are due at `now`, which workers sharing one
    /// database share: each claims any worker's rows, and a worker on a later clock would leave rows due
    /// after an earlier one's for nobody.
    public static func run(
        outbox store: any OutboxRepository, total: Int = 200_000, batchSize: Int = 1_000, now: Date = Date(),
        shape: Shape = .rows
    ) async throws -> Result {
        let payload = Array(#"{"aps":{"alert":"Rex wants to meet you","category":"MATE_REQUEST"}}"#.utf8)
        let token = DeviceToken(bytes: [UInt8](repeating: 0xAB, count: 32))
        let clock = ContinuousClock()
        var random = BulkRandom()
        var done = 0
        let start = clock.now
        while done < total {
            let count = min(batchSize, total - done)
            let pushID = APNSID.generate()
            let items: [OutboxItem]
            switch shape {
            case .rows:
                items = (0..<count).map { _ in
                    OutboxItem(
                        pushID: pushID, token: token, topic: "com.example.sniffmeet", pushType: .alert,
                        payload: payload, environment: .development, priority: .immediately, now: now)
                }
            case .push:
                items = OutboxID.makeDerived(count: count, at: now, using: &random).map { id in
                    OutboxItem(
                        id: id.id, pushID: pushID, token: token, topic: "com.example.sniffmeet", pushType: .alert,
                        payload: payload, environment: .production, priority: .immediately, apnsID: id.apnsID, now: now)
                }
            }
            try await store.enqueue(items)
            var claimed = try await store.claim(limit: count, now: now)
            // Several workers on one database: a claim can find every queued row locked by the others' claims
            // or enqueued after its snapshot; it tries again while rows are queued.
            while claimed.isEmpty, try await store.pendingCounts()[.queued, default: 0] > 0 {
                claimed = try await store.claim(limit: count, now: now)
            }
            // The sandbox answers every development notification with its own apns-unique-id (production with
            // none). Made from random words fetched in blocks: Foundation's `UUID()` opens and reads
            // /dev/urandom per call on Linux, and the system generator makes two `getrandom` calls per id; the
            // service pays neither (it reads the id from the answer).
            try await store.complete(
                claimed.map { item in
                    OutboxCompletion(
                        item,
                        .accepted(
                            apnsID: item.apnsID?.rawValue ?? "",
                            uniqueID: item.environment.isDevelopment ? APNSID.generate(using: &random) : nil))
                }, now: now)
            done += claimed.count
            if claimed.isEmpty { break }
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Result(cycles: done, seconds: seconds)
    }
}
