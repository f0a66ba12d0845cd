internal import CNGHTTP2
import Foundation
public import PushIO
public import PushTLS

/// An HTTP/2 client connection on one event loop: TLS + ALPN h2 (or cleartext h2 with prior knowledge),
/// requests queued while the server's MAX_CONCURRENT_STREAMS is reached, keep-alive PING, GOAWAY handling.
///
/// `@unchecked Sendable`: confined to `loop`'s thread, which every public entry point checks
/// (`preconditionInEventLoop`; the `IOStreamDelegate` callbacks come from its stream on that thread); the
/// type is Sendable only so that loop jobs can carry it.
public final class HTTP2ClientConnection: @unchecked Sendable {
    /// Lifecycle.
    public enum State: Sendable, Equatable {
        /// Not yet connecting.
        case idle
        /// TCP/TLS in progress, or waiting for the server's SETTINGS.
        case connecting
        /// Requests flow.
        case ready
        /// GOAWAY received or sent: open streams finish, no new ones.
        case draining
        /// Finished.
        case closed
    }

    /// The loop this connection lives on.
    public let loop: EventLoop
    /// The configuration it was made with.
    public let configuration: Configuration
    /// Receives life events (held weakly).
    public var delegate: (any HTTP2ClientConnectionDelegate)? {
        get {
            loop.preconditionInEventLoop()
            return observer
        }
        set {
            loop.preconditionInEventLoop()
            observer = newValue
        }
    }
    private weak var observer: (any HTTP2ClientConnectionDelegate)?
    /// Current lifecycle state.
    public var state: State {
        loop.preconditionInEventLoop()
        return phase
    }
    var phase: State = .idle
    /// TLS details once connected.
    public var tlsInfo: TLSSessionInfo? {
        loop.preconditionInEventLoop()
        return stream?.tlsInfo
    }

    private var stream: IOStream?
    var session: HTTP2Session?
    /// Requests waiting for a stream, in order.
    var queue = Deque<HTTP2ClientExchange>()
    /// Exchanges whose stream is open: a list linked through the exchanges themselves (no allocation,
    /// no hashing); nghttp2's stream user data points at each, for the callbacks.
    var openHead: HTTP2ClientExchange?
    var openCount = 0
    var nextHandle: Int64 = 0
    var lastActivity = ContinuousClock.now
    private var connectTimer: LoopTimer?
    private var keepAliveTimer: LoopTimer?
    var pingDeadline: ContinuousClock.Instant?
    private var closeError: IOError?
    /// The last-stream-id of the server's GOAWAY: streams above it were never processed.
    private var goAwayLastStreamID: Int32?
    /// True while `stream(_:didRead:)` feeds input to the session (it flushes when done).
    var receiving = false

    /// A connection that will reach `configuration.host:port` once ``connect()`` is called.
    public init(loop: EventLoop, configuration: Configuration) {
        self.loop = loop
        self.configuration = configuration
    }

    /// Streams open now.
    public var openStreamCount: Int {
        loop.preconditionInEventLoop()
        return openCount
    }
    /// Requests waiting for a free stream.
    public var queuedCount: Int {
        loop.preconditionInEventLoop()
        return queue.count
    }
    /// How many streams may be open at once now: the server's limit capped by ours.
    public var streamLimit: Int {
        loop.preconditionInEventLoop()
        return limit
    }
    /// True while connected through a proxy that may hold back pieces of a write (one not
    /// ``PushIO/IOProxy/relaysAtOnce``): requests then go out in TLS records of whole requests of at most
    /// `tunnelRecordBytes`; false for a direct connection or one through a proxy that relays at once.
    public var writesRequestGroups: Bool {
        loop.preconditionInEventLoop()
        return stream?.relayMayHoldBack ?? false
    }
    var limit: Int {
        guard let session else { return 0 }
        return min(session.remoteMaxConcurrentStreams, configuration.maxConcurrentStreams)
    }

    /// Starts connecting; failures arrive as `didCloseWith`.
    public func connect() {
        loop.preconditionInEventLoop()
        guard phase == .idle else { return }
        phase = .connecting
        let timer = LoopTimer(loop: loop) { [unowned self] in
            if self.phase == .connecting {
                self.fail(IOError(.timeout, "no HTTP/2 connection within \(self.configuration.connectTimeout / .seconds(1)) s"))
            }
        }
        timer.schedule(after: configuration.connectTimeout)
        connectTimer = timer
        do {
            stream = try IOStream.connect(
                on: loop, host: configuration.host, port: configuration.port,
                tls: configuration.tls, serverName: configuration.serverName,
                proxy: configuration.proxy, delegate: self)
        } catch let error as IOError {
            fail(error)
        } catch {
            fail(IOError(.tls, "\(error)"))
        }
    }

    /// Stops taking requests: queued ones end `.notProcessed`, open ones finish, then GOAWAY and close.
    public func close() {
        loop.preconditionInEventLoop()
        guard phase != .closed else { return }
        for exchange in queue.removeAll() { exchange.finished(.notProcessed("connection closing")) }
        if phase == .idle || phase == .connecting {
            finish(error: nil)
            return
        }
        phase = .draining
        closeIfDrained()
    }

    /// Drops the connection now: open requests end `.outcomeUnknown`, queued ones `.notProcessed`.
    public func abort(_ reason: String = "connection aborted") {
        loop.preconditionInEventLoop()
        fail(IOError(.broken, reason))
    }

    // MARK: internals

    func pump() {
        guard phase == .ready, let session, let stream else { return }
        let limit = self.limit
        let shaped = stream.relayMayHoldBack
        var submitted = false
        while openCount < limit, stream.pendingOutputBytes < configuration.outputHighWater, let next = queue.first {
            // Through a proxy that may hold back pieces (`IOStream.relayMayHoldBack`), a request waits while
            // the connection's window cannot take its body: its HEADERS would go out alone and its DATA later
            // (a record the server cannot answer yet, see flush()). The answers to the open requests bring the
            // WINDOW_UPDATE, and pump() again.
            if shaped, openCount > 0, next.request.body.count > session.remoteWindowSize { break }
            guard let exchange = queue.popFirst() else { break }
            do {
                exchange.streamID = try session.submitRequest(exchange, unindexed: configuration.unindexedFields)
                linkOpen(exchange)
                submitted = true
            } catch {
                exchange.finished(.notProcessed("\(error)"))
                continue
            }
            // Through such a proxy: this request's frames now, before nghttp2 puts the HEADERS of the next
            // requests ahead of its DATA, so that they go out together (see flush()).
            guard shaped else { continue }
            do {
                try session.stageOutput(requestGroupsUpTo: Self.tunnelRecordBytes) { stream.writeRecord($0) }
            } catch {
                return fail(IOError(.broken, "\(error)"))
            }
        }
        // While input is being processed the flush after it writes everything at once.
        if submitted && !receiving { flush() }
    }

    func flush() {
        guard let session, let stream else { return }
        do {
            if stream.relayMayHoldBack {
                // Through a proxy that may hold back pieces, TLS records end where requests end
                // (IOStream+Tunnel.swift says why).
                try session.drainOutput(requestGroupsUpTo: Self.tunnelRecordBytes) { stream.writeRecord($0) }
            } else {
                try session.drainOutput { stream.write($0) }
            }
        } catch {
            fail(IOError(.broken, "\(error)"))
        }
    }

    /// Through a proxy that may hold back pieces of a write, the most bytes of whole requests written as one
    /// TLS record: under the 2 KB that tinyproxy reads and relays at a time, so every piece it passes on
    /// completes a record.
    static let tunnelRecordBytes = 1536

    // Hooks for the event extension (same type, another file).
    func installSession(_ session: HTTP2Session) { self.session = session }
    var currentSession: HTTP2Session? { session }
    func noteActivity() { lastActivity = ContinuousClock.now }
    func clearPingDeadline() { pingDeadline = nil }
    func markReady() { becomeReady() }

    func afterStreamClosed() {
        if phase == .draining {
            closeIfDrained()
        } else {
            pump()
            delegate?.connectionHasCapacity(self)
        }
    }

    func goAwayReceived(lastStreamID: Int32) {
        guard phase != .closed else { return }
        goAwayLastStreamID = min(goAwayLastStreamID ?? .max, lastStreamID)
        phase = .draining
        for exchange in queue.removeAll() { exchange.finished(.notProcessed("server sent GOAWAY")) }
    }

    private func becomeReady() {
        guard phase == .connecting else { return }
        phase = .ready
        connectTimer?.cancel()
        connectTimer = nil
        keepAliveTimer = makeKeepAliveTimer()
        delegate?.connectionDidBecomeReady(self)
        pump()
    }

    func closeIfDrained() {
        guard phase == .draining, openCount == 0 else { return }
        if let session {
            try? session.submitGoAway(errorCode: HTTP2ErrorCode.noError, lastStreamID: 0, debugData: [])
            flush()
        }
        finish(error: nil)
    }

    func fail(_ error: IOError) {
        guard phase != .closed else { return }
        closeError = error
        stream?.abort()
        finish(error: error)
    }

    private func finish(error: IOError?) {
        guard phase != .closed else { return }
        phase = .closed
        connectTimer?.cancel()
        keepAliveTimer?.cancel()
        connectTimer = nil
        keepAliveTimer = nil
        stream?.close()
        stream = nil
        let reason = error?.description ?? "connection closed"
        var lost: [HTTP2ClientExchange] = []
        lost.reserveCapacity(openCount)
        while let exchange = openHead {
            unlinkOpen(exchange)
            lost.append(exchange)
        }
        for exchange in queue.removeAll() { exchange.finished(.notProcessed(reason)) }
        for exchange in lost.sorted(by: { $0.streamID < $1.streamID }) {
            // Above the GOAWAY's last-stream-id the server processed nothing (RFC 9113 §6.8); nghttp2 reports
            // only the streams it had opened, not requests it still held back for the stream limit.
            if let last = goAwayLastStreamID, exchange.streamID > last {
                exchange.finished(.notProcessed("above the server's GOAWAY last-stream-id \(last)"))
            } else {
                exchange.finished(.outcomeUnknown(reason))
            }
        }
        // The session may be mid-callback (this can run inside `receive`): free it on a later turn.
        session?.delegate = nil
        let retired = LoopBound(session, loop: loop)
        session = nil
        loop.execute { withExtendedLifetime(retired.value) {} }
        delegate?.connection(self, didCloseWith: error)
    }
}
