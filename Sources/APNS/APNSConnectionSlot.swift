import Foundation
import PushHTTP2
import PushIO

/// One of a client's connection places: the live connection, its reconnect back-off, and connections
/// being retired after a GOAWAY. Loop-confined (owned by ``APNSDispatcher``).
final class APNSConnectionSlot {
    let index: Int
    var connection: HTTP2ClientConnection?
    var retiring: [ObjectIdentifier: HTTP2ClientConnection] = [:]
    var consecutiveFailures = 0
    var notBefore: ContinuousClock.Instant = .now
    var readySince: ContinuousClock.Instant?
    var reconnectTimer: LoopTimer?
    var observers: [ObjectIdentifier: SlotObserver] = [:]

    init(index: Int) { self.index = index }

    /// Ready, or still connecting, and taking new work.
    var usableConnection: HTTP2ClientConnection? {
        guard let connection, connection.state == .ready || connection.state == .connecting || connection.state == .idle else { return nil }
        return connection
    }

    /// Streams open plus requests queued on the live connection.
    var load: Int {
        guard let connection else { return 0 }
        return connection.openStreamCount + connection.queuedCount
    }

    /// Moves a draining connection aside so a fresh one can take its place.
    func retireCurrent() {
        guard let connection else { return }
        retiring[ObjectIdentifier(connection)] = connection
        self.connection = nil
    }

    /// Exponential back-off with jitter (50–100 % of the step), from `initial` up to `maximum`.
    func backOff(now: ContinuousClock.Instant, initial: Duration, maximum: Duration) {
        consecutiveFailures += 1
        let step = min(maximum, initial * pow(2, Double(consecutiveFailures - 1)))
        notBefore = now + step * Double.random(in: 0.5...1.0)
    }
}
