public import Foundation

/// Webhook endpoints and the queue of events for them.
///
/// Events are not written through this protocol on the service's paths: each store writes them inside the
/// transaction of the change that causes them (outbox claim and complete, device invalidation, drop match,
/// mate request answer), one row per subscribed endpoint, and none when no endpoint subscribes. Delivery
/// claims are leases like the outbox's: a claim counts an attempt (the fence of `complete`), and a row whose
/// lease ran out (its instance died) can be claimed again.
public protocol WebhookRepository: Sendable {
    /// Registers `endpoint`; throws `duplicateID` when the id is taken.
    func addEndpoint(_ endpoint: WebhookEndpoint) async throws
    /// Every endpoint, oldest first.
    func endpoints() async throws -> [WebhookEndpoint]
    /// The endpoint with `id`.
    func endpoint(id: String) async throws -> WebhookEndpoint?
    /// Deletes the endpoint and the events still queued for it; false when there was none.
    func removeEndpoint(id: String) async throws -> Bool
    /// Makes the configuration file's endpoints exactly `endpoints`: adds or updates them, and removes
    /// configured ones no longer listed (API-made endpoints are left alone).
    func replaceConfigured(_ endpoints: [WebhookEndpoint]) async throws
    /// Queues `events` for every endpoint subscribed to their types, in one transaction; returns the rows.
    @discardableResult
    func record(_ events: [WebhookEvent]) async throws -> Int
    /// Claims up to `limit` deliveries for `endpointID` due at `now` (oldest first), in flight under a lease
    /// of `lease`.
    func claim(endpointID: String, limit: Int, lease: Duration, now: Date) async throws -> [WebhookDelivery]
    /// Records attempts: delivered, or back to pending with back-off, or failed once the retry window is
    /// over (`retry`). An attempt whose row is no longer in flight under the same claim is ignored.
    func complete(_ attempts: [WebhookAttempt], retry: WebhookRetryPolicy, now: Date) async throws
    /// The endpoint's most recent deliveries, newest change first: only those with a failed attempt when
    /// `failedOnly`.
    func deliveries(endpointID: String, failedOnly: Bool, limit: Int) async throws -> [WebhookDelivery]
    /// Rows per state, every state present.
    func counts() async throws -> [WebhookDeliveryState: Int]
    /// Pending and in-flight rows (those two states only): what every metrics scrape reads, where `counts()`
    /// visits every row kept.
    func pendingCounts() async throws -> [WebhookDeliveryState: Int]
    /// When the earliest pending delivery is due; nil when none is pending.
    func nextDue() async throws -> Date?
    /// Deletes up to `limit` delivered or failed rows last changed before `date`; returns how many.
    @discardableResult
    func purge(olderThan date: Date, limit: Int) async throws -> Int
}

extension WebhookRepository {
    /// `counts()`' pending and in-flight entries: for stores without an index of their pending rows.
    public func pendingCounts() async throws -> [WebhookDeliveryState: Int] {
        try await counts().filter { $0.key.isPending }
    }
}
