/// Where an outbox row is in its life.
public enum OutboxState: String, Sendable, CaseIterable, Hashable {
    /// Waiting for `nextAttemptAt`.
    case queued
    /// Claimed by a sender; its outcome is not known yet.
    case inFlight = "in_flight"
    /// APNs accepted it (terminal).
    case accepted
    /// APNs rejected it for good (terminal).
    case rejected
    /// Every retry was used up (terminal).
    case failed
    /// Its `apns-expiration` passed before it could be sent (terminal).
    case expired

    /// True for states a row never leaves.
    public var isTerminal: Bool {
        switch self {
        case .queued, .inFlight: return false
        case .accepted, .rejected, .failed, .expired: return true
        }
    }
}
