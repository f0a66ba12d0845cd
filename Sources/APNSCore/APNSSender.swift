/// Something that sends notifications to APNs: the boundary between a program that queues notifications
/// (the push service's outbox worker) and the APNs client (`APNSClient` conforms), or a stand-in for it.
///
/// A rejection by APNs is an outcome; a thrown error (``send(_:)``) or a ``APNSDeliveryResult/failed(_:)``
/// result means the transport failed, and its kind says whether the notification may have been delivered.
public protocol APNSSender: Sendable {
    /// Sends `notification` and returns APNs' answer; throws ``APNSTransportError`` when none came.
    func send(_ notification: APNSNotification) async throws -> APNSOutcome
    /// Sends many notifications; returns once they are handed over. `deliver` receives each one's result
    /// exactly once, possibly in several chunks and on any thread (keep it short).
    func send(batch notifications: [APNSNotification], deliver: @escaping @Sendable ([APNSBatchResult]) -> Void) async
    /// Sends broadcasts to channels with the contract of ``send(batch:deliver:)``.
    func send(broadcasts: [APNSBroadcast], deliver: @escaping @Sendable ([APNSBatchResult]) -> Void) async
    /// Closes connections, letting in-flight requests finish for up to `deadline`.
    func shutdown(deadline: Duration) async
    /// Connections ready to send and HTTP/2 streams open now, for metrics and health checks; nil if unknown.
    func connectionState() async -> APNSSenderConnections?
}

/// A sender's connections at one moment.
public struct APNSSenderConnections: Sendable, Equatable {
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

extension APNSSender {
    /// Default: one task per notification through ``send(_:)``, each result delivered on its own.
    public func send(batch notifications: [APNSNotification], deliver: @escaping @Sendable ([APNSBatchResult]) -> Void) async {
        for (index, notification) in notifications.enumerated() {
            Task {
                let delivery: APNSDeliveryResult
                do {
                    delivery = APNSDeliveryResult(try await self.send(notification))
                } catch let error as APNSTransportError {
                    delivery = .failed(error)
                } catch {
                    // Another sender's error says nothing of the notification's fate.
                    delivery = .failed(APNSTransportError(.outcomeUnknown, "\(error)"))
                }
                deliver([APNSBatchResult(index: index, delivery: delivery)])
            }
        }
    }

    /// Default: a sender that cannot broadcast answers every broadcast `notSent`.
    public func send(broadcasts: [APNSBroadcast], deliver: @escaping @Sendable ([APNSBatchResult]) -> Void) async {
        guard !broadcasts.isEmpty else { return }
        let error = APNSTransportError(.notSent, "this sender cannot send broadcasts")
        deliver(broadcasts.indices.map { APNSBatchResult(index: $0, delivery: .failed(error)) })
    }

    /// Default: nothing to close.
    public func shutdown(deadline: Duration) async {}
    /// Default: unknown.
    public func connectionState() async -> APNSSenderConnections? { nil }
}
