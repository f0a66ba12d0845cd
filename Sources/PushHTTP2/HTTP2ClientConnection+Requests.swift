import PushIO

/// Requests: queued as exchanges, opened as streams within the limits, cancelled or reset by handle.
extension HTTP2ClientConnection {
    /// Sends `request` as soon as a stream is free; `completion` runs on the loop thread exactly once.
    /// Returns a handle for ``cancel(_:)-(Int64)``.
    @discardableResult
    public func send(_ request: HTTP2Request, completion: @escaping (HTTP2Result) -> Void) -> Int64 {
        let exchange = HTTP2ClosureExchange(request: request, completion: completion)
        enqueue(exchange)
        pump()  // writes only on a ready connection
        return exchange.handle
    }

    /// Sends `exchange`'s request as soon as a stream is free; its ``HTTP2ClientExchange/finished(_:)``
    /// runs on the loop thread exactly once.
    public func send(_ exchange: HTTP2ClientExchange) {
        enqueue(exchange)
        pump()
    }

    /// Like ``send(_:)`` but only queues the exchange: nothing is written until ``writeQueued()`` (or the
    /// connection's own activity) runs, so many requests go out together.
    public func enqueue(_ exchange: HTTP2ClientExchange) {
        loop.preconditionInEventLoop()
        nextHandle += 1
        exchange.prepareForSend(handle: nextHandle)
        switch phase {
        case .draining, .closed:
            exchange.finished(.notProcessed("connection is \(phase)"))
        case .idle:
            queue.append(exchange)
            connect()
        case .connecting, .ready:
            queue.append(exchange)
        }
    }

    /// Opens streams for queued requests (as far as the limits allow) and writes them.
    public func writeQueued() {
        loop.preconditionInEventLoop()
        pump()
    }

    /// Cancels a request still waiting for a stream (it ends `.cancelled`); one already written is left alone.
    /// Returns true when it was removed.
    @discardableResult
    public func cancel(_ handle: Int64) -> Bool {
        loop.preconditionInEventLoop()
        guard let exchange = queue.remove(where: { $0.handle == handle }) else { return false }
        exchange.finished(.cancelled)
        return true
    }

    /// Cancels `exchange` if it still waits for a stream (it ends `.cancelled`); true when it was removed.
    @discardableResult
    public func cancel(_ exchange: HTTP2ClientExchange) -> Bool {
        cancel(exchange.handle)
    }

    /// Resets an open stream (CANCEL); its request ends `.outcomeUnknown`.
    public func reset(_ handle: Int64) {
        loop.preconditionInEventLoop()
        var current = openHead
        while let exchange = current, exchange.handle != handle { current = exchange.nextOpen }
        guard let exchange = current else { return }
        session?.resetStream(exchange.streamID, errorCode: HTTP2ErrorCode.cancel)
        flush()
    }

    /// Resets `exchange`'s stream (CANCEL) if it is open; it ends `.outcomeUnknown`.
    public func reset(_ exchange: HTTP2ClientExchange) {
        reset(exchange.handle)
    }

    func linkOpen(_ exchange: HTTP2ClientExchange) {
        exchange.nextOpen = openHead
        exchange.previousOpen = nil
        openHead?.previousOpen = exchange
        openHead = exchange
        openCount += 1
    }

    /// Takes `exchange` off the open list.
    func unlinkOpen(_ exchange: HTTP2ClientExchange) {
        if let previous = exchange.previousOpen {
            previous.nextOpen = exchange.nextOpen
        } else {
            openHead = exchange.nextOpen
        }
        exchange.nextOpen?.previousOpen = exchange.previousOpen
        exchange.nextOpen = nil
        exchange.previousOpen = nil
        openCount -= 1
    }
}
