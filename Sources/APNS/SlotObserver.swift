import PushHTTP2
import PushIO

/// Forwards one connection's events to the dispatcher with its slot.
final class SlotObserver: HTTP2ClientConnectionDelegate {
    unowned let dispatcher: APNSDispatcher
    unowned let slot: APNSConnectionSlot

    init(dispatcher: APNSDispatcher, slot: APNSConnectionSlot) {
        self.dispatcher = dispatcher
        self.slot = slot
    }

    func connectionDidBecomeReady(_ connection: HTTP2ClientConnection) { dispatcher.connectionReady(connection, slot: slot) }
    func connection(_ connection: HTTP2ClientConnection, didReceiveGoAway lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
        dispatcher.connectionGoingAway(connection, slot: slot)
    }
    func connectionHasCapacity(_ connection: HTTP2ClientConnection) {
        if !dispatcher.shuttingDown { dispatcher.drainWaiting() }
    }
    func connection(_ connection: HTTP2ClientConnection, didCloseWith error: IOError?) {
        dispatcher.connectionClosed(connection, slot: slot, error: error)
    }
}

/// Sends waiting for a connection, in arrival order.
struct SendQueue {
    private var items: [APNSSend] = []
    var isEmpty: Bool { items.isEmpty }
    mutating func append(_ send: APNSSend) { items.append(send) }
    mutating func takeAll() -> [APNSSend] {
        defer { items.removeAll() }
        return items
    }
    mutating func remove(id: UInt64) -> Bool {
        guard let index = items.firstIndex(where: { $0.id == id }) else { return false }
        items.remove(at: index)
        return true
    }
}
