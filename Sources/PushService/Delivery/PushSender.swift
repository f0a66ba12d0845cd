public import APNS
public import APNSCore
public import PushStore

/// Sends one notification to APNs: the boundary between the outbox worker and the APNs client.
///
/// A rejection by APNs is an outcome; a thrown error means the transport failed and the worker retries
/// the notification later (it may or may not have been delivered: at-least-once).
public protocol PushSender: Sendable {
    /// Sends `notification` and returns APNs' answer.
    func send(_ notification: APNSNotification) async throws -> APNSOutcome
    /// Sends many notifications; returns once they are handed over. `deliver` receives each one's result
    /// exactly once, possibly in several chunks and on any thread (keep it short).
    func send(batch notifications: [APNSNotification], deliver: @escaping @Sendable ([PushSendResult]) -> Void) async
    /// Sends broadcasts to channels with the contract of `send(batch:deliver:)`.
    func send(broadcasts: [APNSBroadcast], deliver: @escaping @Sendable ([PushSendResult]) -> Void) async
    /// Closes connections, letting in-flight requests finish until `deadline` seconds from now.
    func shutdown(deadline: Duration) async
    /// Connections ready to send and HTTP/2 streams open now, for `/metrics` and `/healthz`; nil if unknown.
    func connectionState() async -> PushSenderConnections?
}

/// A sender's connections at one moment.
public struct PushSenderConnections: Sendable, Equatable {
    /// Connections ready to send.
    public var ready: Int
    /// HTTP/2 streams open across them.
    public var openStreams: Int

    /// A snapshot with the given counts.
    public init(ready: Int, openStreams: Int) {
        self.ready = ready
        self.openStreams = openStreams
    }
}

/// One result of a batch send: the client's own type, carried to the outbox unchanged.
public typealias PushSendResult = APNSBatchResult

extension APNSBatchResult {
    /// The outbox's view of it: the same outcome, types kept.
    public var outboxResult: OutboxResult {
        switch result {
        case .success(.accepted(_, let uniqueID)): .accepted(apnsUniqueID: uniqueID)
        case .success(.rejected(let rejection)): .rejected(rejection)
        case .failure(let error): .transportFailed(error)
        }
    }
}

extension PushSender {
    /// Default: one task per notification through `send(_:)`, each result delivered on its own.
    public func send(batch notifications: [APNSNotification], deliver: @escaping @Sendable ([PushSendResult]) -> Void) async {
        for (index, notification) in notifications.enumerated() {
            Task {
                let result: Result<APNSOutcome, APNSTransportError>
                do {
                    result = .success(try await self.send(notification))
                } catch let error as APNSTransportError {
                    result = .failure(error)
                } catch {
                    // Another sender's error says nothing of the notification's fate.
                    result = .failure(APNSTransportError(.outcomeUnknown, "\(error)"))
                }
                deliver([PushSendResult(index: index, result: result)])
            }
        }
    }

    /// Default: a sender that cannot broadcast answers every broadcast `notSent` (the row is retried, then
    /// fails by the retry policy).
    public func send(broadcasts: [APNSBroadcast], deliver: @escaping @Sendable ([PushSendResult]) -> Void) async {
        guard !broadcasts.isEmpty else { return }
        deliver(
            broadcasts.indices.map {
                PushSendResult(index: $0, result: .failure(APNSTransportError(.notSent, "this sender cannot send broadcasts")))
            })
    }

    /// Default: nothing to close.
    public func shutdown(deadline: Duration) async {}
    /// Default: unknown.
    public func connectionState() async -> PushSenderConnections? { nil }
}
