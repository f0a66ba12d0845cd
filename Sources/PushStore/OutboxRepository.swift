public import Foundation

/// The durable queue of notifications.
public protocol OutboxRepository: Sendable {
    /// Stores `items` as queued, all or none.
    func enqueue(_ items: [OutboxItem]) async throws
    /// Claims up to `limit` due rows (in flight, attempt counted); expired rows end as `expired` and are
    /// named in the claim's `expired`.
    ///
    /// A claim is a lease. A store shared by several instances takes its lease terms (this instance's owner
    /// name and the lease length) when it is built, records owner and deadline on each claimed row, and also
    /// claims in-flight rows whose lease has run out (their owner died): never a row whose lease still runs.
    /// Each claim counts an attempt, and that count fences the outcome (`OutboxCompletion`). A store used by
    /// one process at a time (SQLite, in memory) puts its in-flight rows back at open (`recoverInFlight`).
    func claim(limit: Int, now: Date) async throws -> OutboxClaim
    /// Records outcomes of in-flight rows; returns the new state of each row changed. An outcome whose row is
    /// no longer in flight under the same claim (`OutboxCompletion.attempt`) is stale: it changes nothing and
    /// is left out of the answer. When an id is listed twice, its first outcome counts.
    @discardableResult
    func complete(_ results: [OutboxCompletion], now: Date) async throws -> [String: OutboxState]
    /// Puts in-flight rows back to queued; returns how many.
    @discardableResult
    func recoverInFlight() async throws -> Int
    /// The row with `id`.
    func item(id: String) async throws -> OutboxItem?
    /// The rows of one push, in enqueue order.
    func items(pushID: String) async throws -> [OutboxItem]
    /// Rows per state (every state present).
    func counts() async throws -> [OutboxState: Int]
    /// Queued and in-flight rows (those two states only): what every metrics scrape reads. A store that
    /// indexes its pending rows reads only those, where `counts()` reads every row it keeps.
    func pendingCounts() async throws -> [OutboxState: Int]
    /// Queued plus in-flight rows.
    func depth() async throws -> Int
    /// When the oldest row still to be sent (queued or in flight) was enqueued; nil when none is.
    func oldestPendingEnqueuedAt() async throws -> Date?
    /// The queued and in-flight rows per topic, with the oldest one's enqueue time, sorted by topic; topics
    /// with nothing pending are left out. One grouped read of the pending rows only (those `pendingCounts()`
    /// counts), no final row.
    func pendingByTopic() async throws -> [OutboxTopicDepth]
    /// Deletes up to `limit` final rows (accepted, rejected, failed, expired) last changed before `date`,
    /// oldest first; returns how many. Retention calls it in batches until fewer than `limit` come back.
    @discardableResult
    func purge(olderThan date: Date, limit: Int) async throws -> Int
    /// How often an instance renews the leases of the claims it still holds, so that rows a live instance
    /// is still sending are never claimed again by another; nil when claims never lapse (a store used by
    /// one process at a time). Renewing at this interval keeps every held lease from running out.
    var leaseRenewalInterval: Duration? { get }
    /// Extends the lease of each of `holds` that is still in flight under this instance and that attempt,
    /// to a full lease from `now`; returns the ids renewed. A hold missing from the answer was completed
    /// meanwhile or was claimed again by another instance after its lease ran out: its outcome will be stale.
    func renewLeases(_ holds: [OutboxHold], now: Date) async throws -> Set<String>
}

extension OutboxRepository {
    /// `counts()`' queued and in-flight entries: for stores without an index of their pending rows.
    public func pendingCounts() async throws -> [OutboxState: Int] {
        try await counts().filter { !$0.key.isTerminal }
    }
}
