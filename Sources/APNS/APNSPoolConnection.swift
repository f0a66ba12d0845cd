import PushHTTP2
import PushIO

/// One connection of the pool: the HTTP/2 connection and its id, which forwards the connection's events
/// to the dispatcher's pool. Loop-confined (owned by ``APNSDispatcher``).
final class APNSPoolConnection: HTTP2ClientConnectionDelegate {
    let id: APNSPoolConnectionID
    let connection: HTTP2ClientConnection
    unowned let dispatcher: APNSDispatcher

    init(id: APNSPoolConnectionID, connection: HTTP2ClientConnection, dispatcher: APNSDispatcher) {
        self.id = id
        self.connection = connection
        self.dispatcher = dispatcher
        connection.delegate = self
    }

    /// Ready, or still connecting, and taking new work.
    var takesRequests: Bool {
        let state = connection.state
        return state == .ready || state == .connecting || state == .idle
    }

    func connectionDidBecomeReady(_ connection: HTTP2ClientConnection) {
        dispatcher.perform(dispatcher.pool.connectionReady(id, streamLimit: connection.streamLimit, now: .now))
    }

    func connection(_ connection: HTTP2ClientConnection, didReceiveGoAway lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
        dispatcher.pool.goAway(id)
    }

    func connectionHasCapacity(_ connection: HTTP2ClientConnection) {
        dispatcher.perform(dispatcher.pool.connectionHasCapacity(id, streamLimit: connection.streamLimit, now: .now))
    }

    func connection(_ connection: HTTP2ClientConnection, didCloseWith error: IOError?) {
        dispatcher.connections[id] = nil
        dispatcher.perform(dispatcher.pool.connectionClosed(id, error: error, now: .now))
    }
}
