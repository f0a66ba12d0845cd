public import APNSCore
public import Foundation

/// What a programmable handler decides for one request.
public enum MockAPNSDecision: Sendable, Hashable {
    /// Answer 200 (no further rule, registry or fault is applied).
    case accept
    /// Answer with `reason`'s status and body; `timestamp` goes into the body of a 410.
    case reject(APNSRejectionReason, timestamp: Date? = nil)
}

/// A programmable handler: called first for every request (off the fast path); `nil` lets the
/// default rules decide. Runs on the server's loop thread, so keep it quick.
public typealias MockAPNSHandler = @Sendable (MockAPNSRequest) -> MockAPNSDecision?

/// Ready-made handlers.
public enum MockAPNSHandlers {
    /// Decides per device token (lowercase hex); other tokens follow the default rules.
    public static func perToken(_ decisions: [String: MockAPNSDecision]) -> MockAPNSHandler {
        let normalized = Dictionary(decisions.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        return { request in request.token.flatMap { normalized[$0.lowercased()] } }
    }

    /// Rejects every request with `reason`.
    public static func rejectAll(_ reason: APNSRejectionReason, timestamp: Date? = nil) -> MockAPNSHandler {
        { _ in .reject(reason, timestamp: timestamp) }
    }
}
