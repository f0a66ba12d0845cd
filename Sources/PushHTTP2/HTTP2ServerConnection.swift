internal import CNGHTTP2
public import PushIO
public import PushTLS

/// The server side of one HTTP/2 connection: parses requests, hands each to a handler, writes answers.
///
/// `@unchecked Sendable`: confined to `loop`'s thread, which every public entry point checks
/// (`preconditionInEventLoop`); the type is Sendable only so that loop jobs can carry it.
public final class HTTP2ServerConnection: @unchecked Sendable {
    /// The loop it lives on.
    public let loop: EventLoop
    /// Serves the requests; held strongly until the connection closes.
    public var handler: (any HTTP2ServerHandler)? {
        get {
            loop.preconditionInEventLoop()
            return served
        }
        set {
            loop.preconditionInEventLoop()
            served = newValue
        }
    }
    var served: (any HTTP2ServerHandler)?
    /// TLS details (ALPN, client certificate) once the handshake finished.
    public var tlsInfo: TLSSessionInfo? {
        loop.preconditionInEventLoop()
        return stream?.tlsInfo
    }
    /// Streams open right now.
    public var openStreamCount: Int {
        loop.preconditionInEventLoop()
        return streamsOpen
    }
    var streamsOpen = 0
    /// The most streams ever open at once on this connection.
    public var maxObservedOpenStreams: Int {
        loop.preconditionInEventLoop()
        return mostStreamsOpen
    }
    var mostStreamsOpen = 0
    /// Requests received whole.
    public var requestCount: Int {
        loop.preconditionInEventLoop()
        return requestsReceived
    }
    var requestsReceived = 0
    /// When the bytes being handled now were read from the socket: the arrival time of every request
    /// handed over during that read (one clock reading per read, not per request).
    public var receivedAt: ContinuousClock.Instant {
        loop.preconditionInEventLoop()
        return readStarted
    }
    var readStarted = ContinuousClock.now
    /// Free for the handler: per-connection state (for example an authenticated team).
    public var userInfo: [String: String] {
        get {
            loop.preconditionInEventLoop()
            return info
        }
        set {
            loop.preconditionInEventLoop()
            info = newValue
        }
    }
    private var info: [String: String] = [:]
    /// Bytes handed to the socket so far (HTTP/2 frames, before TLS): an answer ends at the count that
    /// ``HTTP2ServerHandler/connection(_:didWrite:)`` reports after the write that carried it.
    public var bytesWritten: Int {
        loop.preconditionInEventLoop()
        return written
    }
    private var written = 0
    /// Of ``bytesWritten``, how many the client may not have received: those still queued in this process
    /// and those the client's TCP has not acknowledged (Linux; elsewhere only the queued ones). The kernel
    /// counts bytes of TLS records, a little more than the frames they carry, so this errs on the side of
    /// more. 0 once closed.
    public var undeliveredBytes: Int {
        loop.preconditionInEventLoop()
        guard let stream, !closed else { return 0 }
        return stream.pendingOutputBytes + (stream.kernelOutputQueue?.unacknowledged ?? 0)
    }
    /// What the kernel holds of the written bytes (Linux; nil elsewhere or once closed): not acknowledged by
    /// the client, and of those not sent yet.
    public var kernelOutputQueue: (unacknowledged: Int, unsent: Int)? {
        loop.preconditionInEventLoop()
        guard !closed else { return nil }
        return stream?.kernelOutputQueue
    }
    /// True once closed.
    public var isClosed: Bool {
        loop.preconditionInEventLoop()
        return closed
    }
    private var closed = false

    var stream: IOStream?
    var session: HTTP2Session?
    /// Requests being received: pooled records found through nghttp2's stream user data (no dictionary,
    /// and no allocation per request once the pool is warm), whole requests or captured fields.
    var incoming = StreamRecordPool()
    /// The handler's ``HTTP2ServerHandler/requestFields``, read when the session starts: when set, requests
    /// arrive as ``HTTP2ServerRequestFields``.
    var capture: FieldCapture?
    /// The last stream id of the GOAWAY sent: streams above it are not processed (nghttp2 refuses them once
    /// the frame is out; until then, ones begun in the same read are dropped when they end, never handed
    /// over).
    var goAwayLastStreamID: Int32 = .max
    private var goingAway = false
    /// A flush job is queued (``flushUnlessReceiving()``).
    private var flushScheduled = false
    /// True while `stream(_:didRead:)` feeds input to the session (it flushes when done).
    var receiving = false
    private var lingerTimer: LoopTimer?
    let settings: [(id: Int32, value: UInt32)]
    private let unindexedFields: [String]
    private let onClose: (HTTP2ServerConnection) -> Void

    init(stream: IOStream, settings: HTTP2ServerSettings, onClose: @escaping (HTTP2ServerConnection) -> Void) {
        self.loop = stream.loop
        self.stream = stream
        self.settings = settings.entries
        unindexedFields = settings.unindexedFields
        self.onClose = onClose
        stream.delegate = self
    }

    /// Answers stream `streamID`; ignored when the stream is gone (the client reset it).
    public func respond(to streamID: Int32, status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        loop.preconditionInEventLoop()
        guard let session, !closed else { return }
        do {
            try session.submitResponse(
                streamID: streamID, headers: HeaderBlock(status: status, fields: headers, unindexed: unindexedFields),
                body: body.isEmpty ? nil : body)
        } catch {
            return
        }
        flushUnlessReceiving()
    }

    /// Sends new SETTINGS with this MAX_CONCURRENT_STREAMS.
    public func updateSettings(maxConcurrentStreams: Int) {
        loop.preconditionInEventLoop()
        guard let session, !closed else { return }
        try? session.submitSettings([(Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), UInt32(maxConcurrentStreams))])
        flushUnlessReceiving()
    }

    /// Sends GOAWAY; streams up to `lastStreamID` (default: every stream received so far) still get their
    /// answers, then the connection closes.
    public func goAway(errorCode: UInt32 = HTTP2ErrorCode.noError, debugData: [UInt8] = [], lastStreamID: Int32? = nil) {
        loop.preconditionInEventLoop()
        guard let session, !closed, !goingAway else { return }
        goingAway = true
        let last = lastStreamID ?? session.lastProcessedStreamID
        goAwayLastStreamID = last
        try? session.submitGoAway(errorCode: errorCode, lastStreamID: last, debugData: debugData)
        flushUnlessReceiving()
        closeIfDone()
    }

    /// Drops the TCP connection at once (reset), as a crashing server would.
    public func abort() {
        loop.preconditionInEventLoop()
        stream?.abort()
        finish()
    }

    /// Closes after flushing what is queued.
    public func close() {
        loop.preconditionInEventLoop()
        flush()  // answers given while input was being parsed are still unwritten
        stream?.close()
        finish()
    }

    /// Writes soon: while input is being parsed, in the one write after it (nghttp2 must not send from its
    /// callbacks); otherwise (answers from timers, say) in a loop job that runs after the other events of
    /// this loop iteration, so the answers of every timer that fired together go out in one write. A TLS
    /// record, a syscall and a wake-up of the peer per answer cost a server most of its time under load.
    func flushUnlessReceiving() {
        guard !receiving, !flushScheduled else { return }
        flushScheduled = true
        loop.execute { [self] in
            flushScheduled = false
            flush()
        }
    }

    func flush() {
        guard let session, let stream else { return }
        var wrote = 0
        do {
            try session.drainOutput {
                stream.write($0)
                wrote += $0.count
            }
        } catch {
            abort()
            return
        }
        guard wrote > 0 else { return }
        written += wrote
        served?.connection(self, didWrite: written)
    }

    /// After GOAWAY, once every stream is answered, the connection waits for the client to close it
    /// (up to `linger`) instead of closing first: closing a socket with unread client bytes makes
    /// the kernel send a reset, which can destroy answers the client has not read yet.
    func closeIfDone() {
        guard goingAway, streamsOpen == 0, lingerTimer == nil, !closed else { return }
        let timer = LoopTimer(loop: loop) { [weak self] in self?.close() }
        timer.schedule(after: lingerDelay)
        lingerTimer = timer
    }

    /// How long to wait for the client to close after a GOAWAY.
    public var linger: Duration {
        get {
            loop.preconditionInEventLoop()
            return lingerDelay
        }
        set {
            loop.preconditionInEventLoop()
            lingerDelay = newValue
        }
    }
    private var lingerDelay: Duration = .seconds(2)

    func finish() {
        guard !closed else { return }
        closed = true
        lingerTimer?.cancel()
        lingerTimer = nil
        stream = nil
        session?.delegate = nil
        let retired = LoopBound(session, loop: loop)
        session = nil
        loop.execute { withExtendedLifetime(retired.value) {} }
        served?.connectionDidClose(self)
        served = nil
        onClose(self)
    }
}
