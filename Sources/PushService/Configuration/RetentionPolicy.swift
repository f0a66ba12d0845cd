import Foundation

/// How long finished data stays in the store before the retention job deletes it (`retention` in the
/// configuration file). Rows still in use are never purged: queued or in-flight outbox rows, pending drops,
/// unanswered mate requests, `Idempotency-Key` records younger than their 24-hour replay window, and
/// activity tokens still in use (push-to-start tokens, update tokens not retired yet). The priority-10
/// budget's entries go once they are out of its one-hour window (`LiveActivitySettings`).
public struct RetentionPolicy: Sendable, Equatable {
    /// Final outbox rows (accepted, rejected, failed, expired), counted from their last change.
    public var finalOutbox: Duration = .seconds(7 * 86_400)
    /// Answered mate requests, counted from the answer.
    public var answeredMateRequest: Duration = .seconds(30 * 86_400)
    /// Ended drops (matched, cancelled, expired) with no mate request left, counted from the end.
    public var endedDrop: Duration = .seconds(30 * 86_400)
    /// `Idempotency-Key` records, counted from the first request; never less than the replay window.
    public var idempotencyKey: Duration = .seconds(2 * 86_400)
    /// Delivered (or given-up) webhook events, counted from their last attempt.
    public var webhookEvent: Duration = .seconds(7 * 86_400)
    /// Retired Live Activity update tokens (their activity ended), counted from when they retired.
    public var retiredActivityToken: Duration = .seconds(7 * 86_400)
    /// Time between passes of the retention job.
    public var interval: Duration = .seconds(60)
    /// Rows deleted per transaction; the job yields between batches so the API never waits long.
    public var batchSize = 1_000

    /// The defaults.
    public init() {}
}

/// The store's tables the retention job purges, as `/metrics` labels them.
enum RetentionTable: String, CaseIterable, Sendable {
    case outbox
    case mateRequests = "mate_requests"
    case drops
    case idempotencyKeys = "idempotency_keys"
    case webhookEvents = "webhook_events"
    case activityTokens = "activity_tokens"
    case activityBudget = "activity_budget"
}
