import APNSCore
import PushHTTP2

/// One notification on its way through the dispatcher.
///
/// `@unchecked Sendable`: created on the caller's task, then touched only on the client's loop thread.
final class APNSSend: @unchecked Sendable {
    let id: UInt64
    let request: HTTP2Request
    let started: Double
    let deadline: Double
    var resends = 0
    /// The provider JWT of the last write (token auth only).
    var jwt: String?
    /// Whether the token was already replaced once after 403 ExpiredProviderToken.
    var refreshedToken = false
    var timedOut = false
    var continuation: CheckedContinuation<APNSOutcome, Error>?
    var connection: HTTP2ClientConnection?
    var handle: Int64 = 0

    init(id: UInt64, request: HTTP2Request, started: Double, deadline: Double,
         continuation: CheckedContinuation<APNSOutcome, Error>) {
        self.id = id
        self.request = request
        self.started = started
        self.deadline = deadline
        self.continuation = continuation
    }
}
