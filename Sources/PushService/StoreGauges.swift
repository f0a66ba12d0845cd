import Foundation
import PushStore

/// A figure `GET /metrics` reads from the store, read at most once per `maxAge`.
///
/// Counting outbox rows by state reads every row of the outbox's state table (on SQLite, 30-40 ms for
/// the 50,000 rows a service at 20,000 notifications/s keeps with a 1-second retention), on the store's
/// one connection, where it holds up claims, completions and enqueues. A scraper every 15 seconds does
/// not notice; one polling several times a second (a load test pacing itself on `/metrics`) took a fifth
/// of the store's time. Scrapes within `maxAge` of the last read reuse it, and concurrent scrapes share
/// one read, so the cost is bounded whatever the scrape rate. The counters of `ServiceMetrics` are kept
/// in memory and are always current.
///
/// `/metrics` keeps two: the pending rows (`StoreSnapshot`, once a second), which a store with an index of
/// them reads alone, and the final rows by state (once a minute), which every store reads by visiting each
/// row it keeps: on PostgreSQL, 60-70 ms of parallel scan at 300,000 rows, per instance and per read.
actor StoreGauges<Value: Sendable> {
    /// Scrapes at most this often read the store (the default: once a second).
    let maxAge: Duration
    private var last: (readAt: ContinuousClock.Instant, snapshot: Value)?
    private var reading: Task<Value, any Error>?
    /// Called each time a caller joins the read under way instead of starting its own (the tests watch it).
    private let onShare: @Sendable () -> Void

    init(maxAge: Duration = .seconds(1), onShare: @escaping @Sendable () -> Void = {}) {
        self.maxAge = maxAge
        self.onShare = onShare
    }

    /// The last snapshot if it was read less than `maxAge` ago, else a new one from `read` (shared with
    /// every caller that asks while it is being read).
    func snapshot(_ read: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let now = ContinuousClock.now
        if let last, now - last.readAt < maxAge { return last.snapshot }
        if let reading {
            onShare()
            return try await reading.value
        }
        let task = Task { try await read() }
        reading = task
        defer { reading = nil }
        let snapshot = try await task.value
        last = (now, snapshot)
        return snapshot
    }
}

/// What a scrape reads from the store every time (at most once a second): only pending rows.
struct StoreSnapshot: Sendable {
    /// Queued and in-flight outbox rows.
    var pendingCounts: [OutboxState: Int]
    /// When the oldest notification still queued or in flight was enqueued (nil when none is).
    var oldestPending: Date?
    /// Pending and in-flight webhook events.
    var pendingWebhookCounts: [WebhookDeliveryState: Int]
}

/// The rows in final states, read at most once a minute: counting them visits every row kept.
struct FinalCounts: Sendable {
    /// Outbox rows accepted, rejected, failed or expired.
    var outbox: [OutboxState: Int]
    /// Webhook events delivered or given up.
    var webhooks: [WebhookDeliveryState: Int]
}
