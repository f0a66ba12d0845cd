internal import CNGHTTP2

/// What a session reports while it parses bytes; called synchronously from ``HTTP2Session/receive(_:)``.
protocol HTTP2SessionDelegate: AnyObject {
    func sessionBeganHeaders(streamID: Int32)
    func sessionReceivedHeader(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
    func sessionReceivedData(streamID: Int32, data: UnsafeRawBufferPointer)
    func sessionEndedStream(streamID: Int32)
    func sessionClosedStream(streamID: Int32, errorCode: UInt32)
    func sessionReceivedGoAway(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8])
    func sessionReceivedSettings()
    func sessionReceivedPingAck()
}

/// An nghttp2 session that does no I/O: bytes go in with ``receive(_:)`` and come out with ``drainOutput(_:)``.
/// Confined to one thread (its connection's loop).
final class HTTP2Session {
    private let session: OpaquePointer
    /// Not retained and not weak: the owner (a connection) keeps the session and outlives every call into it,
    /// and sets this to nil before it retires the session. A weak reference cost a side-table load, retain
    /// and release on every nghttp2 callback (several per request). The callbacks that run for every
    /// request reach the connection through `box.receiver`, kept in step here, with no reference counted.
    unowned(unsafe) var delegate: (any HTTP2SessionDelegate)? {
        didSet { box.receiver = SessionBox.Receiver(delegate) }
    }
    private var bodies: [Int32: OutgoingBody] = [:]
    let isServer: Bool

    /// A client or server session; `settings` go out first.
    init(server: Bool, settings: [(id: Int32, value: UInt32)], delegate: any HTTP2SessionDelegate) throws {
        isServer = server
        var callbacks: OpaquePointer?
        try checkNGHTTP2(nghttp2_session_callbacks_new(&callbacks), "nghttp2_session_callbacks_new")
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, http2OnBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, http2OnHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, http2OnFrameReceived)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, http2OnDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, http2OnStreamClose)
        var option: OpaquePointer?
        try checkNGHTTP2(nghttp2_option_new(&option), "nghttp2_option_new")
        defer { nghttp2_option_del(option) }
        // Until the server's SETTINGS arrive, assume one stream (what APNs allows a fresh connection).
        if !server { nghttp2_option_set_peer_max_concurrent_streams(option, 1) }
        var raw: OpaquePointer?
        let box = SessionBox()
        let context = Unmanaged.passUnretained(box).toOpaque()
        let pool = HTTP2MemoryPool()
        var memory = pool.table
        if server {
            try checkNGHTTP2(nghttp2_session_server_new3(&raw, callbacks, context, option, &memory), "nghttp2_session_server_new3")
        } else {
            try checkNGHTTP2(nghttp2_session_client_new3(&raw, callbacks, context, option, &memory), "nghttp2_session_client_new3")
        }
        session = raw!
        self.box = box
        self.pool = pool
        self.delegate = delegate
        box.receiver = SessionBox.Receiver(delegate)  // (didSet does not run in init)
        box.owner = Unmanaged.passUnretained(self).toOpaque()
        try submitSettings(settings)
    }

    private let box: SessionBox
    /// nghttp2's memory for this session; released after the session (stored properties outlive `deinit`'s body).
    private let pool: HTTP2MemoryPool

    deinit {
        nghttp2_session_del(session)
        output.deallocate()
    }

    /// Queues a SETTINGS frame.
    func submitSettings(_ settings: [(id: Int32, value: UInt32)]) throws {
        var entries = settings.map { nghttp2_settings_entry(settings_id: $0.id, value: $0.value) }
        try checkNGHTTP2(
            nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count),
            "nghttp2_submit_settings")
    }

    /// Feeds received bytes; delegate callbacks run during the call.
    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let result = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        if result < 0 { throw HTTP2Error(function: "nghttp2_session_mem_recv", code: result, message: Self.text(result)) }
    }

    /// Hands every frame ready to go out to `write`, gathered into chunks of up to ``outputChunk`` bytes
    /// (each valid only during the call): nghttp2 serializes one frame at a time, and a write per frame
    /// cost a buffer chain, a TLS record and a syscall per frame further down.
    func drainOutput(_ write: (UnsafeRawBufferPointer) -> Void) throws {
        var buffer = output  // one access to the stored property per drain, not one per frame
        defer { output = buffer }
        var gathered = 0
        while let frame = try nextOutputFrame() {
            let count = frame.count
            if gathered + count > buffer.count, buffer.count < Self.outputChunk {
                buffer = Self.grown(buffer, keeping: gathered, toHold: gathered + count)
            }
            if gathered + count > buffer.count {
                if gathered > 0 { write(UnsafeRawBufferPointer(rebasing: buffer[..<gathered])) }
                gathered = 0
                if count > buffer.count {
                    write(frame)  // a frame larger than a chunk
                    continue
                }
            }
            (buffer.baseAddress! + gathered).copyMemory(from: frame.baseAddress!, byteCount: count)
            gathered += count
        }
        if gathered > 0 { write(UnsafeRawBufferPointer(rebasing: buffer[..<gathered])) }
    }

    /// The next frame nghttp2 has ready to go out (valid until the next call into the session), nil when none is.
    func nextOutputFrame() throws -> UnsafeRawBufferPointer? {
        var data: UnsafePointer<UInt8>?
        let count = nghttp2_session_mem_send(session, &data)
        if count < 0 { throw HTTP2Error(function: "nghttp2_session_mem_send", code: count, message: Self.text(count)) }
        return count == 0 ? nil : UnsafeRawBufferPointer(start: data, count: count)
    }

    /// Staged output (tunnelled connections): its length at the start of ``output``, the end of the frames
    /// parsed (``unparsed`` once frames can no longer be found), the end of the whole requests gathered,
    /// and whether a frame with END_STREAM was seen whose request has not ended yet.
    var staged = 0
    var stagedParsed = 0
    var stagedGroupEnd = 0
    var stagedEnding = false
    /// The client connection preface (24 bytes, first out) is behind us.
    var prefaceSkipped = false
    static let unparsed = Int.min / 2

    /// Output is handed on once this much is gathered (and at the end of each drain).
    static let outputChunk = 64 << 10
    /// Where the frames of a drain are gathered: grown (up to ``outputChunk``) as drains need it, kept
    /// between drains; raw memory, so gathering a frame is a copy and nothing else.
    var output = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)

    /// A larger buffer (doubled until it holds `needed`, at most ``outputChunk``) with `buffer`'s first
    /// `kept` bytes; `buffer` is freed.
    static func grown(_ buffer: UnsafeMutableRawBufferPointer, keeping kept: Int, toHold needed: Int) -> UnsafeMutableRawBufferPointer {
        var size = buffer.count
        while size < needed, size < outputChunk { size *= 2 }
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: min(size, outputChunk), alignment: 16)
        if kept > 0 { larger.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: kept) }
        buffer.deallocate()
        return larger
    }

    /// Opens a client stream for `exchange` (its user data, read back with ``streamUserData(_:)``, and the
    /// source of its body); returns the stream's id. The caller keeps `exchange` alive while the stream is open.
    func submitRequest(_ exchange: HTTP2ClientExchange, unindexed: [String]) throws -> Int32 {
        let pointer = Unmanaged.passUnretained(exchange).toOpaque()
        let request = exchange.request
        let headers = request.headerBlock(unindexed: unindexed)
        let streamID: Int32
        if request.body.isEmpty {
            streamID = headers.withEntries { nghttp2_submit_request(session, nil, $0, $1, nil, pointer) }
        } else {
            exchange.outgoingBody = request.body
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: pointer), read_callback: http2ReadExchangeBody)
            streamID = headers.withEntries { nghttp2_submit_request(session, nil, $0, $1, &provider, pointer) }
        }
        if streamID < 0 {
            throw HTTP2Error(function: "nghttp2_submit_request", code: Int(streamID), message: Self.text(Int(streamID)))
        }
        return streamID
    }

    /// The user data of an open stream (given with a client request, or set with ``setStreamUserData(_:_:)``);
    /// nil when there is none or nghttp2 has no such open stream.
    func streamUserData(_ streamID: Int32) -> UnsafeMutableRawPointer? {
        nghttp2_session_get_stream_user_data(session, streamID)
    }

    /// Sets (or clears, with nil) the user data of an open stream.
    func setStreamUserData(_ streamID: Int32, _ data: UnsafeMutableRawPointer?) {
        _ = nghttp2_session_set_stream_user_data(session, streamID, data)
    }

    /// Answers a server stream with header fields already laid out and no body; false when nghttp2 refused.
    func submitResponse(streamID: Int32, fields: UnsafePointer<nghttp2_nv>, count: Int) -> Bool {
        nghttp2_submit_response(session, streamID, fields, count, nil) == 0
    }

    /// Answers a server stream.
    func submitResponse(streamID: Int32, headers: HeaderBlock, body: [UInt8]?) throws {
        let outgoing = body.flatMap { $0.isEmpty ? nil : OutgoingBody($0) }
        let result = withProvider(outgoing) { provider in
            headers.withEntries { nghttp2_submit_response(session, streamID, $0, $1, provider) }
        }
        try checkNGHTTP2(result, "nghttp2_submit_response")
        if let outgoing { bodies[streamID] = outgoing }
    }

    /// Calls `body` with a data provider reading `outgoing`, or nil for a message without a body.
    private func withProvider<R>(_ outgoing: OutgoingBody?, _ body: (UnsafeMutablePointer<nghttp2_data_provider>?) -> R) -> R {
        guard let outgoing else { return body(nil) }
        var provider = nghttp2_data_provider(
            source: nghttp2_data_source(ptr: Unmanaged.passUnretained(outgoing).toOpaque()), read_callback: http2ReadBody)
        return body(&provider)
    }

    /// Resets a stream with `errorCode`.
    func resetStream(_ streamID: Int32, errorCode: UInt32) {
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode)
    }

    /// Queues a GOAWAY with `lastStreamID` (nil: the last stream the peer opened) and optional debug data.
    func submitGoAway(errorCode: UInt32, lastStreamID: Int32?, debugData: [UInt8]) throws {
        let last = lastStreamID ?? nghttp2_session_get_last_proc_stream_id(session)
        let result = debugData.withUnsafeBufferPointer {
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, $0.baseAddress, $0.count)
        }
        try checkNGHTTP2(result, "nghttp2_submit_goaway")
    }

    /// Queues a PING.
    func submitPing() throws {
        try checkNGHTTP2(nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil), "nghttp2_submit_ping")
    }

    /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS.
    var remoteMaxConcurrentStreams: Int {
        Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// How many bytes of DATA the peer's connection-level flow-control window takes now.
    var remoteWindowSize: Int { Int(nghttp2_session_get_remote_window_size(session)) }

    /// Highest stream id the peer opened that we processed.
    var lastProcessedStreamID: Int32 { nghttp2_session_get_last_proc_stream_id(session) }

    /// False once both sides are done (after GOAWAY and all streams closed).
    var isAlive: Bool {
        nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    // Callback targets.
    func bodyFinished(streamID: Int32) { bodies[streamID] = nil }
    func streamClosed(streamID: Int32, errorCode: UInt32) {
        if !bodies.isEmpty { bodies[streamID] = nil }
    }

    static func text(_ code: Int) -> String { String(cString: nghttp2_strerror(Int32(code))) }

}

/// Turns a non-zero nghttp2 return code into an ``HTTP2Error`` naming `function`.
func checkNGHTTP2(_ result: Int32, _ function: String) throws {
    if result != 0 { throw HTTP2Error(function: function, code: Int(result), message: HTTP2Session.text(Int(result))) }
}
