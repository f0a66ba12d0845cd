public import Foundation

/// Where a queued event stands for one endpoint.
public enum WebhookDeliveryState: String, Sendable, CaseIterable {
    /// Waiting for its next attempt.
    case pending
    /// Claimed by an instance and being sent (under a lease).
    case inFlight = "in_flight"
    /// The endpoint answered 2xx.
    case delivered
    /// Given up after the retry window (`WebhookRetryPolicy.giveUpAfter`).
    case failed

    /// Whether the row is still to be delivered (pending or in flight).
    public var isPending: Bool { self == .pending || self == .inFlight }
}

/// One event queued for one endpoint: what the worker sends and what `GET /v1/webhooks/{id}/deliveries` lists.
public struct WebhookDelivery: Sendable, Equatable {
    /// The event id.
    public var eventID: String
    /// The endpoint it goes to.
    public var endpointID: String
    /// The event type.
    public var type: WebhookEventType
    /// The event's JSON as sent (`WebhookEvent.json`, serialized).
    public var body: [UInt8]
    /// Where it stands.
    public var state: WebhookDeliveryState
    /// Attempts made so far (a claim counts one; the fencing token of the claim).
    public var attempts: Int
    /// When the next attempt is due (pending rows).
    public var nextAttemptAt: Date
    /// The HTTP status of the last attempt, nil when none came (connection refused, timeout).
    public var lastStatus: Int?
    /// What went wrong on the last failed attempt.
    public var lastError: String?
    /// When the event was queued.
    public var createdAt: Date
    /// When the row last changed.
    public var updatedAt: Date

    /// A delivery from its parts (stores build these from rows).
    public init(
        eventID: String, endpointID: String, type: WebhookEventType, body: [UInt8], state: WebhookDeliveryState,
        attempts: Int, nextAttemptAt: Date, lastStatus: Int?, lastError: String?, createdAt: Date, updatedAt: Date
    ) {
        self.eventID = eventID
        self.endpointID = endpointID
        self.type = type
        self.body = body
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// The outcome of one attempt of one claimed delivery, reported to `WebhookRepository.complete`.
public struct WebhookAttempt: Sendable, Equatable {
    /// The event id.
    public var eventID: String
    /// The endpoint id.
    public var endpointID: String
    /// The claim's attempt count (fences a late answer off a row claimed again since).
    public var attempt: Int
    /// True when the endpoint answered 2xx.
    public var delivered: Bool
    /// The HTTP status, nil when no answer came.
    public var status: Int?
    /// What went wrong (nil when delivered).
    public var error: String?

    /// The outcome of `delivery`'s current claim.
    public init(_ delivery: WebhookDelivery, delivered: Bool, status: Int?, error: String?) {
        self.eventID = delivery.eventID
        self.endpointID = delivery.endpointID
        self.attempt = delivery.attempts
        self.delivered = delivered
        self.status = status
        self.error = error
    }
}
