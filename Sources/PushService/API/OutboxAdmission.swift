import Foundation
import PushStore
import PushSync

/// The bound on what the outbox holds (`outbox.max_pending` …): rows still to be sent (queued or in flight)
/// and their payload bytes, in total and per app. 0 for any of them: no bound of that kind.
public struct OutboxBound: Sendable, Equatable {
    /// Pending rows in the whole outbox.
    public var maxPending = 1_000_000
    /// Pending rows of one app.
    public var maxPendingPerApp = 1_000_000
    /// Payload bytes of the pending rows in the whole outbox.
    public var maxPendingBytes = 1 << 30
    /// Payload bytes of one app's pending rows.
    public var maxPendingBytesPerApp = 1 << 30
    /// How old the pending counts read from the store may be (`outbox.admission_refresh_s`).
    public var refresh: Duration = .seconds(1)

    /// The defaults: a million rows and 1 GiB of payloads, in total and per app, counts at most a second old.
    public init() {}
}

/// Admission control for `POST /v1/pushes`: a push that would take the outbox past its bound
/// (`OutboxBound`) is refused whole (503 `outbox_full`, nothing stored), before a flood while APNs is
/// unreachable fills the disk; once the outbox drains below the bound, pushes are taken again.
///
/// Counting is cheap: the pending rows per topic come from the store's grouped read of its pending rows
/// (`OutboxRepository.pendingByTopic`, through the partial indexes that hold only pending rows), at most
/// once per `OutboxBound.refresh` (and ten times the last read's duration) and only when a push arrives,
/// one read at a time and beside the pushes, which never wait for it. Between reads, the rows this instance stored (and the ones it is storing) are added to what
/// was read. With several instances on one PostgreSQL database the bound is on the shared outbox: each
/// instance reads the whole outbox's counts, so what the others stored since the last read (at most
/// `refresh` plus one read old) is not yet counted, and the outbox may pass the bound by what they take in meanwhile.
///
/// Payload bytes are not added up by the store: they are estimated as each app's pending rows times the
/// mean payload size of the pushes this instance took for that app (since it started).
final class OutboxAdmission: Sendable {
    /// Why a push was refused.
    enum Refusal: Equatable {
        case rows(app: String?, pending: Int, limit: Int)
        case bytes(app: String?, pending: Int, limit: Int)
    }

    private struct Counts {
        /// Pending rows per app index, and of topics no app serves (last).
        var rows: [Int]
        var readAt: ContinuousClock.Instant?
        /// How long the last read took: the next starts no sooner than ten times that after it (a read of a
        /// long outbox then takes at most a tenth of one connection's time).
        var readTook: Duration = .zero
        /// Rows stored by this instance since the last read.
        var added: [Int]
        /// Rows admitted and being stored.
        var storing: [Int]
        /// Per app: payload bytes and rows of the pushes taken (for the mean payload size).
        var payloadBytes: [Int]
        var payloadRows: [Int]
    }

    let bound: OutboxBound
    private let apps: [String]
    private let counts: PThreadLock<Counts>
    private let reading = PThreadLock<Task<Void, any Error>?>(nil)

    init(bound: OutboxBound, apps: [String]) {
        self.bound = bound
        self.apps = apps
        let slots = apps.count + 1
        counts = PThreadLock(
            Counts(
                rows: Array(repeating: 0, count: slots), readAt: nil, readTook: .zero, added: Array(repeating: 0, count: slots),
                storing: Array(repeating: 0, count: slots),
                payloadBytes: Array(repeating: 0, count: slots), payloadRows: Array(repeating: 0, count: slots)))
    }

    /// Whether any bound is set.
    var isBounded: Bool {
        bound.maxPending > 0 || bound.maxPendingPerApp > 0 || bound.maxPendingBytes > 0 || bound.maxPendingBytesPerApp > 0
    }

    /// Starts a read of the pending rows per app from the store when the last one began more than
    /// `bound.refresh` (and ten times its own duration) ago, one read at a time. No push waits for it: pushes
    /// are admitted by the last counts plus what this instance took since (before the first read lands, by
    /// what it took alone) until the new read lands, so a slow read of a long outbox never holds a push up,
    /// and a read that fails keeps the last counts.
    func refresh(outbox: any OutboxRepository, appIndex: @escaping @Sendable (String) -> Int?) {
        let stale = counts.withLock { counts in
            counts.readAt.map { ContinuousClock.now - $0 >= max(bound.refresh, counts.readTook * 10) } ?? true
        }
        guard stale else { return }
        reading.withLock { reading in
            guard reading == nil else { return }
            reading = Task { [self] in
                defer { self.reading.withLock { $0 = nil } }
                try await self.read(outbox: outbox, appIndex: appIndex)
            }
        }
    }

    /// One read of the pending rows per app, taken as the counts unless a read that began later landed first.
    private func read(outbox: any OutboxRepository, appIndex: @Sendable (String) -> Int?) async throws {
        // What this instance had stored when the read began is in it; what it stores while the read runs may
        // not be, and stays counted (twice at worst, which errs on the side of the bound).
        let (started, storedBefore) = counts.withLock { (ContinuousClock.now, $0.added) }
        let topics = try await outbox.pendingByTopic()
        let unserved = apps.count
        var rows = Array(repeating: 0, count: apps.count + 1)
        for topic in topics { rows[appIndex(topic.topic) ?? unserved] += topic.depth }
        counts.withLock { counts in
            // A read that began before a later one ended adds nothing newer.
            if let readAt = counts.readAt, readAt > started { return }
            counts.rows = rows
            counts.readAt = started
            counts.readTook = ContinuousClock.now - started
            counts.added = zip(counts.added, storedBefore).map { max(0, $0 - $1) }
        }
    }

    /// Takes `rows` rows of `payloadBytes` each for app `index` (nil: a topic no app serves) if the bound
    /// allows them, counting them at once (so pushes taken together cannot pass it between them); returns
    /// why not otherwise.
    func admit(app index: Int?, rows: Int, payloadBytes: Int) -> Refusal? {
        let slot = index ?? apps.count
        let name = index.map { apps[$0] }
        return counts.withLock { counts -> Refusal? in
            func pending(_ slot: Int) -> Int { counts.rows[slot] + counts.added[slot] + counts.storing[slot] }
            func bytes(_ slot: Int, extra: Int = 0) -> Int {
                let mean = counts.payloadRows[slot] == 0 ? payloadBytes : counts.payloadBytes[slot] / counts.payloadRows[slot]
                return pending(slot) * mean + extra
            }
            let total = counts.rows.indices.reduce(0) { $0 + pending($1) }
            if bound.maxPendingPerApp > 0, pending(slot) + rows > bound.maxPendingPerApp {
                return .rows(app: name, pending: pending(slot), limit: bound.maxPendingPerApp)
            }
            if bound.maxPending > 0, total + rows > bound.maxPending {
                return .rows(app: nil, pending: total, limit: bound.maxPending)
            }
            let incoming = rows * payloadBytes
            if bound.maxPendingBytesPerApp > 0, bytes(slot, extra: incoming) > bound.maxPendingBytesPerApp {
                return .bytes(app: name, pending: bytes(slot), limit: bound.maxPendingBytesPerApp)
            }
            let totalBytes = counts.rows.indices.reduce(0) { $0 + bytes($1) }
            if bound.maxPendingBytes > 0, totalBytes + incoming > bound.maxPendingBytes {
                return .bytes(app: nil, pending: totalBytes, limit: bound.maxPendingBytes)
            }
            counts.storing[slot] += rows
            counts.payloadBytes[slot] += incoming
            counts.payloadRows[slot] += rows
            return nil
        }
    }

    /// Rows taken by `admit` are stored (`stored`) or were not after all: counted until the next read, or
    /// given back.
    func finished(app index: Int?, rows: Int, stored: Bool) {
        let slot = index ?? apps.count
        counts.withLock { counts in
            counts.storing[slot] = max(0, counts.storing[slot] - rows)
            if stored { counts.added[slot] += rows }
        }
    }

    /// Pending rows as last counted (read plus taken since), per app name ("" for topics no app serves).
    var pendingRows: [String: Int] {
        counts.withLock { counts in
            var rows: [String: Int] = [:]
            for (slot, name) in (apps + [""]).enumerated() {
                rows[name] = counts.rows[slot] + counts.added[slot] + counts.storing[slot]
            }
            return rows
        }
    }
}
