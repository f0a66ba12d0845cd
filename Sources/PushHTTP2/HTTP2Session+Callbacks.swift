internal import CNGHTTP2

/// The C side's `user_data`: a hop back to the session (kept alive by the session itself) and to the
/// connection the per-request callbacks go to, as plain pointers, so a callback counts no reference.
///
/// Not counting is safe because a connection outlives every callback its session makes: during `receive`
/// the connection's stream holds it for the read that feeds the session, and during `drainOutput` the
/// connection is running one of its own methods, which its caller holds it for.
final class SessionBox {
    /// The connection behind the delegate, by its concrete type (no existential, no retain per call).
    enum Receiver {
        case client(Unmanaged<HTTP2ClientConnection>)
        case server(Unmanaged<HTTP2ServerConnection>)
        case other

        init(_ delegate: (any HTTP2SessionDelegate)?) {
            switch delegate {
            case let client as HTTP2ClientConnection: self = .client(.passUnretained(client))
            case let server as HTTP2ServerConnection: self = .server(.passUnretained(server))
            default: self = .other
            }
        }
    }

    var owner: UnsafeMutableRawPointer?
    var receiver = Receiver.other
}

/// A request or response body being written out, tracked by offset.
final class OutgoingBody {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// Calls `body` with the session of a callback's `user_data`, which is alive for the callback (its
/// connection holds it while nghttp2 runs it), so no reference is counted for the call.
@inline(__always)
private func withOwner<R>(_ context: UnsafeMutableRawPointer?, _ body: (HTTP2Session) -> R) -> R {
    let box = Unmanaged<SessionBox>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.owner! }
    return Unmanaged<HTTP2Session>.fromOpaque(box)._withUnsafeGuaranteedRef(body)
}

/// Calls the connection behind a callback's `user_data` (see ``SessionBox``): `client` or `server` with
/// the concrete type, or `other` with the delegate (nil once the session is retired).
@inline(__always)
private func dispatch(
    _ context: UnsafeMutableRawPointer?, client: (HTTP2ClientConnection) -> Void, server: (HTTP2ServerConnection) -> Void,
    other: (any HTTP2SessionDelegate) -> Void
) {
    let receiver = Unmanaged<SessionBox>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.receiver }
    switch receiver {
    case .client(let connection): connection._withUnsafeGuaranteedRef(client)
    case .server(let connection): connection._withUnsafeGuaranteedRef(server)
    case .other: if let delegate = withOwner(context, { $0.delegate }) { other(delegate) }
    }
}

func http2OnBeginHeaders(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    let streamID = frame!.pointee.hd.stream_id
    dispatch(
        context, client: { $0.sessionBeganHeaders(streamID: streamID) }, server: { $0.sessionBeganHeaders(streamID: streamID) },
        other: { $0.sessionBeganHeaders(streamID: streamID) })
    return 0
}

func http2OnHeader(
    _ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _ flags: UInt8, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    let streamID = frame!.pointee.hd.stream_id
    let name = UnsafeRawBufferPointer(start: name, count: nameLength)
    let value = UnsafeRawBufferPointer(start: value, count: valueLength)
    dispatch(
        context, client: { $0.sessionReceivedHeader(streamID: streamID, name: name, value: value) },
        server: { $0.sessionReceivedHeader(streamID: streamID, name: name, value: value) },
        other: { $0.sessionReceivedHeader(streamID: streamID, name: name, value: value) })
    return 0
}

func http2OnFrameReceived(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    let header = frame.pointee.hd
    let endStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    switch Int(header.type) {
    case Int(NGHTTP2_HEADERS.rawValue), Int(NGHTTP2_DATA.rawValue):
        // Every request: the end of a stream's headers or data.
        guard endStream else { return 0 }
        let streamID = header.stream_id
        dispatch(
            context, client: { $0.sessionEndedStream(streamID: streamID) }, server: { $0.sessionEndedStream(streamID: streamID) },
            other: { $0.sessionEndedStream(streamID: streamID) })
        return 0
    default:
        break
    }
    guard let delegate = withOwner(context, { $0.delegate }) else { return 0 }
    switch Int(header.type) {
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

func http2OnDataChunk(
    _ session: OpaquePointer?, _ flags: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ context: UnsafeMutableRawPointer?
) -> Int32 {
    let data = UnsafeRawBufferPointer(start: data, count: length)
    dispatch(
        context, client: { $0.sessionReceivedData(streamID: streamID, data: data) },
        server: { $0.sessionReceivedData(streamID: streamID, data: data) }, other: { $0.sessionReceivedData(streamID: streamID, data: data) })
    return 0
}

func http2OnStreamClose(_ session: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32, _ context: UnsafeMutableRawPointer?) -> Int32 {
    withOwner(context) { $0.streamClosed(streamID: streamID, errorCode: errorCode) }
    dispatch(
        context, client: { $0.sessionClosedStream(streamID: streamID, errorCode: errorCode) },
        server: { $0.sessionClosedStream(streamID: streamID, errorCode: errorCode) },
        other: { $0.sessionClosedStream(streamID: streamID, errorCode: errorCode) })
    return 0
}

/// Copies the next part of a client exchange's request body (the data source is the exchange).
func http2ReadExchangeBody(
    _ session: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ context: UnsafeMutableRawPointer?
) -> Int {
    let exchange = Unmanaged<HTTP2ClientExchange>.fromOpaque(source!.pointee.ptr).takeUnretainedValue()
    let offset = exchange.bodyOffset
    let (count, end) = exchange.outgoingBody.withUnsafeBufferPointer { body in
        let count = min(length, body.count - offset)
        buffer!.update(from: body.baseAddress! + offset, count: count)
        return (count, offset + count == body.count)
    }
    exchange.bodyOffset = offset + count
    if end {
        flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        exchange.outgoingBody = []
    }
    return count
}

func http2ReadBody(
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
        withOwner(context) { $0.bodyFinished(streamID: streamID) }
    }
    return count
}
