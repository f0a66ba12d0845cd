import APNSCore
import PushHTTP2
import PushIO

/// What the connections report (through their ``SlotObserver``): ready, going away, closed.
extension APNSDispatcher {
    func connectionReady(_ connection: HTTP2ClientConnection, slot: APNSConnectionSlot) {
        slot.consecutiveFailures = 0
        slot.readySince = ContinuousClock.now
        configuration.metrics.record(.connectionOpened)
        drainWaiting()
    }

    func connectionGoingAway(_ connection: HTTP2ClientConnection, slot: APNSConnectionSlot) {
        if slot.connection === connection { slot.retireCurrent() }
    }

    func connectionClosed(_ connection: HTTP2ClientConnection, slot: APNSConnectionSlot, error: IOError?) {
        let now = ContinuousClock.now
        // A handshake the server refused (never ready), not a broken session: the certificate is the problem.
        let handshakeRefused =
            configuration.failsFastOnHandshakeFailure && error?.kind == .tls && slot.connection === connection && slot.readySince == nil
        slot.observers[ObjectIdentifier(connection)] = nil
        slot.retiring[ObjectIdentifier(connection)] = nil
        if slot.connection === connection {
            slot.connection = nil
            // A connection that failed, or lived less than a second, counts against the back-off.
            if error != nil && (slot.readySince.map { now - $0 < .seconds(1) } ?? true) {
                slot.backOff(now: now, initial: configuration.initialReconnectDelay, maximum: configuration.maxReconnectDelay)
            }
        }
        configuration.metrics.record(.connectionClosed(error: error?.description))
        if let error, slot.connection == nil, error.kind == .proxyRefused || (handshakeRefused && readyConnections == 0) {
            // Retrying cannot help until the configuration (or the proxy's, or the certificate the server
            // accepts) changes: fail what waits, and new sends at once until the back-off allows an attempt,
            // so a client whose certificate is refused holds nobody's sends for the request timeout.
            let refused =
                error.kind == .tls ? APNSTransportError(.notSent, error.description) : APNSTransportError(.proxyRefused, error.message)
            refusal = refused
            for send in waiting.takeAll() { finish(send, .failure(refused)) }
        }
        if !shuttingDown, !waiting.isEmpty {
            drainWaiting()
        }
    }
}
