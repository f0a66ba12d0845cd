import APNSCore
import Foundation
import PushIO

/// The pool's answers to what happens to requests, connections and timers.
extension APNSPoolStateMachine {
    // MARK: requests

    /// Request `id` got its whole answer (accepted or rejected): it ends, and is forgotten. Returns the
    /// request (nil when it had already ended) and what follows (the drain).
    mutating func answered(_ id: UInt64) -> (Request, Actions)? {
        var actions = Actions()
        guard let request = remove(id, &actions) else { return nil }
        return (request, actions)
    }

    /// Request `id`'s exchange ended without an answer: resent when the server never processed it (up to
    /// `maxResends` times, not after its timeout or during shutdown), else failed with the matching error.
    mutating func exchangeEnded(_ id: UInt64, _ ending: Ending, now: ContinuousClock.Instant) -> Actions {
        var actions = Actions()
        guard let entry = requests[id] else { return actions }
        switch ending {
        case .notProcessed(let why):
            if entry.timedOut {
                // Never written: the timeout leaves it certainly unsent, safe to send again.
                fail(id, APNSTransportError(.notSent, "request timeout: not sent within \(configuration.requestTimeout / .seconds(1)) s"), &actions)
            } else if shuttingDown {
                fail(id, Self.shutdownError, &actions)
            } else if entry.resends < configuration.maxResends {
                requests[id]?.resends += 1
                resend(id, now: now, &actions)
            } else {
                fail(id, APNSTransportError(.notSent, why), &actions)
            }
        case .outcomeUnknown(let why):
            fail(id, APNSTransportError(entry.timedOut ? .timeout : .outcomeUnknown, why), &actions)
        case .cancelled:
            // Taken off a connection's queue before it was written (the timeout, or the task cancelled).
            fail(
                id, APNSTransportError(entry.timedOut ? .notSent : .cancelled, entry.timedOut ? "request timeout: not sent" : "not sent"),
                &actions)
        }
        return actions
    }

    /// Whether request `id` may go out once more (a fresh provider token after 403 ExpiredProviderToken):
    /// it is live, not timed out, and the client is not shutting down.
    func mayResend(_ id: UInt64) -> Bool {
        guard let entry = requests[id] else { return false }
        return !entry.timedOut && !shuttingDown
    }

    /// Sends request `id` again (counted as a resend).
    mutating func resend(_ id: UInt64, now: ContinuousClock.Instant) -> Actions {
        var actions = Actions()
        resend(id, now: now, &actions)
        return actions
    }

    private mutating func resend(_ id: UInt64, now: ContinuousClock.Instant, _ actions: inout Actions) {
        guard let entry = requests[id] else { return }
        leave(id, entry.location)
        requests[id]?.location = .nowhere
        actions.append(.record(.resent))
        route(entry.request, openSlots: true, writeNow: true, now: now, &actions)
    }

    /// Connection `id` could not take request `id` after all (it closed or began draining before the
    /// request reached it): no longer used, and the request placed again (not counted as a resend).
    mutating func connectionRefusedRequest(_ id: UInt64, connection: APNSPoolConnectionID, now: ContinuousClock.Instant) -> Actions {
        var actions = Actions()
        connectionStopped(connection)
        guard let entry = requests[id] else { return actions }
        leave(id, entry.location)
        requests[id]?.location = .nowhere
        route(entry.request, openSlots: true, writeNow: true, now: now, &actions)
        return actions
    }

    /// Request `id` could not be prepared for sending (its provider token cannot be signed): it fails.
    mutating func requestFailed(_ id: UInt64, _ error: APNSTransportError) -> Actions {
        var actions = Actions()
        fail(id, error, &actions)
        return actions
    }

    /// The caller gave up on request `id` (task cancellation): dropped if it was not written yet; one on
    /// the wire is left to finish.
    mutating func cancel(_ id: UInt64) -> Actions {
        var actions = Actions()
        guard let entry = requests[id] else { return actions }
        switch entry.location {
        case .connection(let connection): actions.append(.cancelQueued(entry.request, on: connection))
        case .waiting: fail(id, APNSTransportError(.cancelled, "cancelled before it was sent"), &actions)
        case .nowhere: break
        }
        return actions
    }

    /// The sweep timer fired: the requests past their deadline are taken off their connection's queue
    /// (or their stream is reset), and those still waiting for a connection fail.
    mutating func sweep(now: ContinuousClock.Instant) -> Actions {
        var actions = Actions()
        let expired = deadlines.sweep(now: now) { requests[$0] != nil }
        for id in expired {
            guard let entry = requests[id] else { continue }
            requests[id]?.timedOut = true
            switch entry.location {
            case .connection(let connection):
                actions.append(.cancelOrReset(entry.request, on: connection))
            case .waiting:
                fail(
                    id,
                    APNSTransportError(.notSent, "request timeout: no connection within \(configuration.requestTimeout / .seconds(1)) s"),
                    &actions)
            case .nowhere:
                break
            }
        }
        return actions
    }

    // MARK: connections

    /// Connection `id` finished its handshake: requests flow, and the slot's back-off starts over.
    mutating func connectionReady(_ id: APNSPoolConnectionID, streamLimit: Int, now: ContinuousClock.Instant) -> Actions {
        var actions = Actions()
        slots[id.slot].consecutiveFailures = 0
        slots[id.slot].readySince = now
        if slots[id.slot].current?.id == id {
            slots[id.slot].current!.phase = .ready
            slots[id.slot].current!.streamLimit = streamLimit
        }
        actions.append(.record(.connectionOpened))
        drainWaiting(now: now, &actions)
        return actions
    }

    /// Connection `id` has room again (a stream closed, or new SETTINGS with its stream limit).
    /// `now` is read only when requests wait (this runs after every answer).
    mutating func connectionHasCapacity(_ id: APNSPoolConnectionID, streamLimit: Int, now: @autoclosure () -> ContinuousClock.Instant) -> Actions {
        var actions = Actions()
        if slots[id.slot].current?.id == id, slots[id.slot].current!.phase == .ready { slots[id.slot].current!.streamLimit = streamLimit }
        if !waiting.isEmpty { drainWaiting(now: now(), &actions) }
        return actions
    }

    /// The server sent GOAWAY on connection `id`: it takes no new requests (those above the last stream id
    /// end `.notProcessed` and come back through ``exchangeEnded(_:_:now:)``; those below finish), and a
    /// fresh connection may take its slot.
    mutating func goAway(_ id: APNSPoolConnectionID) {
        guard slots[id.slot].current?.id == id else { return }
        slots[id.slot].retiring.insert(id)
        slots[id.slot].current = nil
    }

    /// Connection `id` was found draining or closed before the pool heard why: it takes no new requests.
    mutating func connectionStopped(_ id: APNSPoolConnectionID) {
        guard slots[id.slot].current?.id == id else { return }
        slots[id.slot].current!.phase = .stopped
    }

    /// Connection `id` closed (`error` nil: orderly). A connection that failed, or lived less than a
    /// second, counts against its slot's back-off; a refusal that retrying cannot cure fails what waits.
    mutating func connectionClosed(_ id: APNSPoolConnectionID, error: IOError?, now: ContinuousClock.Instant) -> Actions {
        var actions = Actions()
        let index = id.slot
        let isCurrent = slots[index].current?.id == id
        // A handshake the server refused (never ready), not a broken session: the certificate is the problem.
        let handshakeRefused = configuration.failsFastOnHandshakeFailure && error?.kind == .tls && isCurrent && slots[index].readySince == nil
        slots[index].retiring.remove(id)
        if isCurrent {
            slots[index].current = nil
            if error != nil && (slots[index].readySince.map { now - $0 < .seconds(1) } ?? true) { backOff(slot: index, now: now) }
        }
        actions.append(.record(.connectionClosed(error: error?.description)))
        if let error, slots[index].current == nil, error.kind == .proxyRefused || (handshakeRefused && readyConnections == 0) {
            // Retrying cannot help until the configuration (or the proxy's, or the certificate the server
            // accepts) changes: fail what waits, and new requests at once until the back-off allows an attempt,
            // so a client whose certificate is refused holds nobody's requests for the request timeout.
            let refused =
                error.kind == .tls ? APNSTransportError(.notSent, error.description) : APNSTransportError(.proxyRefused, error.message)
            refusal = refused
            for waiter in takeWaiting() { fail(waiter, refused, &actions) }
        }
        if !shuttingDown { drainWaiting(now: now, &actions) }
        return actions
    }

    /// Exponential back-off with jitter (50–100 % of the step), from the initial delay up to the largest.
    mutating func backOff(slot index: Int, now: ContinuousClock.Instant) {
        slots[index].consecutiveFailures += 1
        let step = min(
            configuration.maxReconnectDelay, configuration.initialReconnectDelay * pow(2, Double(slots[index].consecutiveFailures - 1)))
        slots[index].notBefore = now + step * jitter()
    }

    /// The reconnect timer of slot `slot` fired: the waiting requests try again (which opens connections
    /// the back-off now allows).
    mutating func reconnectTimerFired(slot: Int, now: ContinuousClock.Instant) -> Actions {
        var actions = Actions()
        slots[slot].reconnectScheduled = false
        drainWaiting(now: now, &actions)
        return actions
    }

    // MARK: shutdown

    /// Stops taking requests; those waiting for a connection fail, those on a connection go on.
    mutating func beginShutdown() -> Actions {
        var actions = Actions()
        shuttingDown = true
        for id in takeWaiting() { fail(id, Self.shutdownError, &actions) }
        return actions
    }

    /// Shutdown waits until no request is left: ``Action/drained`` now, or when the last one ends.
    mutating func awaitDrain() -> Actions {
        var actions = Actions()
        if requests.isEmpty { actions.append(.drained) } else { drainAwaited = true }
        return actions
    }

    /// Closes every connection (live and retiring) and stops the timers; aborts them when requests are
    /// still in flight (the drain's deadline passed).
    mutating func closeConnections() -> Actions {
        var actions = Actions()
        let abort = !requests.isEmpty
        actions.append(.cancelTimers)
        for index in slots.indices {
            slots[index].reconnectScheduled = false
            for id in [slots[index].current?.id].compactMap({ $0 }) + slots[index].retiring.sorted(by: { $0.serial < $1.serial }) {
                actions.append(.closeConnection(id, abort: abort))
            }
        }
        return actions
    }
}
