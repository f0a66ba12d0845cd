import APNSCore
import PushHTTP2
import PushIO

/// Shutdown: stop taking sends, wait for those in flight, close the connections.
extension APNSDispatcher {
    /// Stops taking sends and waits (up to `deadline` seconds) for those in flight, then closes connections.
    func beginShutdown() {
        shuttingDown = true
        for send in waiting.takeAll() {
            finish(send, .failure(APNSTransportError(.shutdown, "client is shutting down")))
        }
    }

    func waitForDrain(_ continuation: CheckedContinuation<Void, Never>) {
        if live.isEmpty { continuation.resume() } else { drained.append(continuation) }
    }

    func closeConnections(abort: Bool) {
        sweepTimer?.cancel()
        for slot in slots {
            slot.reconnectTimer?.cancel()
            for connection in [slot.connection].compactMap({ $0 }) + Array(slot.retiring.values) {
                if abort { connection.abort("client shut down") } else { connection.close() }
            }
        }
    }
}
