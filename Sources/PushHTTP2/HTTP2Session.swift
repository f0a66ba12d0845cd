internal import CNGHTTP2

/// What a session reports while it parses bytes; called synchronously from ``HTTP2Session/receive(_:)``.
protocol HTTP2SessionDelegate: AnyObject {
    func sessionBeganHeaders(streamID: Int32)
    func sessionReceivedHeader(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
    func sessionEndedHeaders(streamID: Int32, endStream: Bool)
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
    /// and release on every nghttp2 callback (several per request).
    unowned(unsafe) var delegate: (any HTTP2SessionDelegate)?
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
        if server {
            try checkNGHTTP2(nghttp2_session_server_new2(&raw, callbacks, context, option), "nghttp2_session_server_new2")
        } else {
            try checkNGHTTP2(nghttp2_session_client_new2(&raw, callbacks, context, option), "nghttp2_session_client_new2")
        }
        session = raw!
        self.box = box
        self.delegate = delegate
        box.owner = self
        try submitSettings(settings)
    }

    private let box: SessionBox

    deinit {
        nghttp2_session_del(session)
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
        defer { gathered.removeAll(keepingCapacity: true) }
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 { throw HTTP2Error(function: "nghttp2_session_mem_send", code: count, message: Self.text(count)) }
            if count == 0 { break }
            gathered.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
            if gathered.count >= Self.outputChunk {
                gathered.withUnsafeBytes(write)
                gathered.removeAll(keepingCapacity: true)
            }
        }
        if !gathered.isEmpty { gathered.withUnsafeBytes(write) }
    }

    /// Output is handed on once this much is gathered (and at the end of each drain).
    static let outputChunk = 64 << 10
    /// The frames of the current drain, kept between drains for its capacity.
    private var gathered: [UInt8] = []

    /// Opens a client stream for `exchange` (its user data, read back with ``streamUserData(_:)``, and the
    /// source of its body); returns the stream's id. The caller keeps `exchange` alive while the stream is open.
    func submitRequest(_ exchange: HTTP2ClientExchange) throws -> Int32 {
        let pointer = Unmanaged.passUnretained(exchange).toOpaque()
        let request = exchange.request
        let streamID: Int32
        if request.body.isEmpty {
            streamID = request.headerBlock.withEntries { nghttp2_submit_request(session, nil, $0, $1, nil, pointer) }
        } else {
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: pointer), read_callback: http2ReadExchangeBody)
            streamID = request.headerBlock.withEntries { nghttp2_submit_request(session, nil, $0, $1, &provider, pointer) }
        }
        if streamID < 0 {
            throw HTTP2Error(function: "nghttp2_submit_request", code: Int(streamID), message: Self.text(Int(streamID)))
        }
        return streamID
    }

    /// The user data given with the stream's request (nil when nghttp2 has no such open stream).
    func streamUserData(_ streamID: Int32) -> UnsafeMutableRawPointer? {
        nghttp2_session_get_stream_user_data(session, streamID)
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

    /// Highest stream id the peer opened that we processed.
    var lastProcessedStreamID: Int32 { nghttp2_session_get_last_proc_stream_id(session) }

    /// False once both sides are done (after GOAWAY and all streams closed).
    var isAlive: Bool {
        nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    // Callback targets.
    fileprivate func bodyFinished(streamID: Int32) { bodies[streamID] = nil }
    fileprivate func streamClosed(streamID: Int32, errorCode: UInt32) {
        if !bodies.isEmpty { bodies[streamID] = nil }
        delegate?.sessionClosedStream(streamID: streamID, errorCode: errorCode)
    }

    static func text(_ code: Int) -> String { String(cString: nghttp2_strerror(Int32(code))) }

}

/// Turns a non-zero nghttp2 return code into an ``HTTP2Error`` naming `function`.
func checkNGHTTP2(_ result: Int32, _ function: String) throws {
    if result != 0 { throw HTTP2Error(function: function, code: Int(result), message: HTTP2Session.text(Int(result))) }
}

/// The C side's `user_data`: an unowned hop back to the session (kept alive by the session itself).
final class SessionBox {
    unowned(unsafe) var owner: HTTP2Session?
}

/// A request or response body being written out, tracked by offset.
final class OutgoingBody {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

private func owner(_ context: UnsafeMutableRawPointer?) -> HTTP2Session {
    Unmanaged<SessionBox>.fromOpaque(context!).takeUnretainedValue().owner!
}

private func http2OnBeginHeaders(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    owner(context).delegate?.sessionBeganHeaders(streamID: frame!.pointee.hd.stream_id)
    return 0
}

private func http2OnHeader(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _ flags: UInt8, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    owner(context).delegate?.sessionReceivedHeader(
        streamID: frame!.pointee.hd.stream_id,
        name: UnsafeRawBufferPointer(start: name, count: nameLength),
        value: UnsafeRawBufferPointer(start: value, count: valueLength))
    return 0
}

private func http2OnFrameReceived(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    let owner = owner(context)
    guard let frame, let delegate = owner.delegate else { return 0 }
    let header = frame.pointee.hd
    let endStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    switch Int(header.type) {
    case Int(NGHTTP2_HEADERS.rawValue):
        delegate.sessionEndedHeaders(streamID: header.stream_id, endStream: endStream)
        if endStream { delegate.sessionEndedStream(streamID: header.stream_id) }
    case Int(NGHTTP2_DATA.rawValue):
        if endStream { delegate.sessionEndedStream(streamID: header.stream_id) }
    case Int(NGHTTP2_SETTINGS.rawValue):
        if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 { delegate.sessionReceivedSettings() }
    case Int(NGHTTP2_PING.rawValue):
        if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 { delegate.sessionReceivedPingAck() }
    case Int(NGHTTP2_GOAWAY.rawValue):
        let goaway = frame.pointee.goaway
        var debug: [UInt8] = []
        if let data = goaway.opaque_data, goaway.opaque_data_len > 0 {
            debug = Array(UnsafeBufferPointer(start: data, count: goaway.opaque_data_len))
        }
        delegate.sessionReceivedGoAway(lastStreamID: goaway.last_stream_id, errorCode: goaway.error_code, debugData: debug)
    default:
        break
    }
    return 0
}

private func http2OnDataChunk(
    _ session: OpaquePointer?, _ flags: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ context: UnsafeMutableRawPointer?
) -> Int32 {
    owner(context).delegate?.sessionReceivedData(streamID: streamID, data: UnsafeRawBufferPointer(start: data, count: length))
    return 0
}

private func http2OnStreamClose(_ session: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32, _ context: UnsafeMutableRawPointer?) -> Int32 {
    owner(context).streamClosed(streamID: streamID, errorCode: errorCode)
    return 0
}

/// Copies the next part of a client exchange's request body (the data source is the exchange).
private func http2ReadExchangeBody(
    _ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ context: UnsafeMutableRawPointer?
) -> Int {
    let exchange = Unmanaged<HTTP2ClientExchange>.fromOpaque(source!.pointee.ptr).takeUnretainedValue()
    let offset = exchange.bodyOffset
    let count = exchange.request.body.withUnsafeBufferPointer { body in
        let count = min(length, body.count - offset)
        buffer!.update(from: body.baseAddress! + offset, count: count)
        return count
    }
    exchange.bodyOffset = offset + count
    if exchange.bodyOffset == exchange.request.body.count { flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
    return count
}

private func http2ReadBody(
    _ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ context: UnsafeMutableRawPointer?
) -> Int {
    let body = Unmanaged<OutgoingBody>.fromOpaque(source!.pointee.ptr).takeUnretainedValue()
    let count = min(length, body.bytes.count - body.offset)
    body.bytes.withUnsafeBufferPointer { source in
        buffer!.update(from: source.baseAddress! + body.offset, count: count)
    }
    body.offset += count
    if body.offset == body.bytes.count {
        flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        owner(context).bodyFinished(streamID: streamID)
    }
    return count
}
