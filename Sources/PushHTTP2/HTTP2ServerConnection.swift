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
    private var served: (any HTTP2ServerHandler)?
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
    private var streamsOpen = 0
    /// The most streams ever open at once on this connection.
    public var maxObservedOpenStreams: Int {
        loop.preconditionInEventLoop()
        return mostStreamsOpen
    }
    private var mostStreamsOpen = 0
    /// Requests received whole.
    public var requestCount: Int {
        loop.preconditionInEventLoop()
        return requestsReceived
    }
    private var requestsReceived = 0
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
    /// True once closed.
    public var isClosed: Bool {
        loop.preconditionInEventLoop()
        return closed
    }
    private var closed = false

    private var stream: IOStream?
    private var session: HTTP2Session?
    /// Requests being received, each in a box so that every header and data chunk changes it in place
    /// (a struct in the dictionary was copied, with its arrays, on each change).
    private var incoming: [Int32: IncomingRequest] = [:]
    private var goingAway = false
    /// The last stream id of the GOAWAY sent: streams above it are not processed (nghttp2 refuses them once
    /// the frame is out; until then, ones begun in the same read are dropped here, never handed over).
    private var goAwayLastStreamID: Int32?
    /// True while `stream(_:didRead:)` feeds input to the session (it flushes when done).
    private var receiving = false
    private var lingerTimer: LoopTimer?
    private let settings: [(id: Int32, value: UInt32)]
    private let onClose: (HTTP2ServerConnection) -> Void

    init(stream: IOStream, settings: HTTP2ServerSettings, onClose: @escaping (HTTP2ServerConnection) -> Void) {
        self.loop = stream.loop
        self.stream = stream
        self.settings = settings.entries
        self.onClose = onClose
        stream.delegate = self
    }

    /// Answers stream `streamID`; ignored when the stream is gone (the client reset it).
    public func respond(to streamID: Int32, status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        loop.preconditionInEventLoop()
        guard let session, !closed else { return }
        do {
            try session.submitResponse(
                streamID: streamID, headers: HeaderBlock(status: status, fields: headers),
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
        for id in incoming.keys where id > last { incoming[id] = nil }
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

    /// Writes now, except while input is being parsed: answers given from inside the session's callbacks
    /// then go out together in the one write after the input (nghttp2 must not send from its callbacks,
    /// and a TLS record and a syscall per answer cost the mock most of its time under load).
    private func flushUnlessReceiving() {
        if !receiving { flush() }
    }

    func flush() {
        guard let session, let stream else { return }
        do {
            try session.drainOutput { stream.write($0) }
        } catch {
            abort()
        }
    }

    /// After GOAWAY, once every stream is answered, the connection waits for the client to close it
    /// (up to `linger`) instead of closing first: closing a socket with unread client bytes makes
    /// the kernel send a reset, which can destroy answers the client has not read yet.
    private func closeIfDone() {
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

    private func finish() {
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

extension HTTP2ServerConnection: IOStreamDelegate {
    public func streamDidConnect(_ stream: IOStream) {
        do {
            session = try HTTP2Session(server: true, settings: settings, delegate: self)
            flush()
        } catch {
            abort()
        }
    }

    public func stream(_ stream: IOStream, didRead bytes: UnsafeRawBufferPointer) {
        guard let session else { return }
        receiving = true
        defer { receiving = false }
        do {
            try session.receive(bytes)
        } catch {
            try? session.submitGoAway(errorCode: HTTP2ErrorCode.protocolError, lastStreamID: nil, debugData: [])
            flush()
            close()
            return
        }
        flush()
    }

    public func streamDidDrain(_ stream: IOStream) {}

    public func stream(_ stream: IOStream, didCloseWith error: IOError) {
        self.stream = nil
        finish()
    }
}

extension HTTP2ServerConnection: HTTP2SessionDelegate {
    func sessionBeganHeaders(streamID: Int32) {
        if goAwayLastStreamID.map({ streamID <= $0 }) ?? true { incoming[streamID] = IncomingRequest(streamID: streamID) }
        streamsOpen += 1
        mostStreamsOpen = max(mostStreamsOpen, streamsOpen)
    }

    func sessionReceivedHeader(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard let box = incoming[streamID] else { return }
        let text = String(decoding: value, as: UTF8.self)
        if name.first == UInt8(ascii: ":") {
            switch String(decoding: name, as: UTF8.self) {
            case ":method": box.request.method = text
            case ":path": box.request.path = text
            case ":scheme": box.request.scheme = text
            case ":authority": box.request.authority = text
            default: break
            }
        } else {
            box.request.headers.append((String(decoding: name, as: UTF8.self), text))
        }
    }

    func sessionEndedHeaders(streamID: Int32, endStream: Bool) {}

    func sessionReceivedData(streamID: Int32, data: UnsafeRawBufferPointer) {
        incoming[streamID]?.request.body.append(contentsOf: data)
    }

    func sessionEndedStream(streamID: Int32) {
        guard let request = incoming.removeValue(forKey: streamID)?.request else { return }
        requestsReceived += 1
        served?.connection(self, didReceive: request)
    }

    func sessionClosedStream(streamID: Int32, errorCode: UInt32) {
        incoming[streamID] = nil
        streamsOpen = max(0, streamsOpen - 1)
        closeIfDone()
    }

    func sessionReceivedGoAway(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {}
    func sessionReceivedSettings() {}
    func sessionReceivedPingAck() {}
}

/// A request being received; confined to its connection's loop thread.
private final class IncomingRequest {
    var request: HTTP2ServerRequest
    init(streamID: Int32) { request = HTTP2ServerRequest(streamID: streamID) }
}
