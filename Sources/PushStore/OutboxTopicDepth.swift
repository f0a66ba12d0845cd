public import Foundation

/// The rows of one topic still to be sent: how deep and how old that part of the outbox is
/// (`OutboxRepository.pendingByTopic`).
public struct OutboxTopicDepth: Sendable, Equatable {
    /// The `apns-topic` of the rows.
    public var topic: String
    /// Rows waiting for a claim.
    public var queued: Int
    /// Rows claimed and being sent.
    public var inFlight: Int
    /// When the oldest of them (queued or in flight) was enqueued.
    public var oldestEnqueuedAt: Date

    /// A topic's pending rows from their parts (stores build these from a grouped read).
    public init(topic: String, queued: Int, inFlight: Int, oldestEnqueuedAt: Date) {
        self.topic = topic
        self.queued = queued
        self.inFlight = inFlight
        self.oldestEnqueuedAt = oldestEnqueuedAt
    }

    /// Queued plus in-flight rows.
    public var depth: Int { queued + inFlight }
}
