internal import CNGHTTP2
public import PushIO
import PushTLS

extension HTTP2ClientConnection: IOStreamDelegate {
    public func streamDidConnect(_ stream: IOStream) {
        if configuration.tls != nil, stream.tlsInfo?.alpn != "h2" {
            fail(IOError(.tls, "server did not agree to HTTP/2 (ALPN: \(stream.tlsInfo?.alpn ?? "none"))"))
            return
        }
        do {
            let settings: [(id: Int32, value: UInt32)] = [
                (Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), 0),
                (Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), 100),
                (Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), 1 << 20),
            ]
            installSession(try HTTP2Session(server: false, settings: settings, delegate: self))
            flush()
        } catch {
            fail(IOError(.broken, "\(error)"))
        }
    }

    public func stream(_ stream: IOStream, didRead bytes: UnsafeRawBufferPointer) {
        noteActivity()
        receiving = true
        do {
            try currentSession?.receive(bytes)
        } catch {
            receiving = false
            fail(IOError(.broken, "HTTP/2 protocol error: \(error)"))
            return
        }
        receiving = false
        // Through a proxy, requests may wait for the connection's window (pump()): a WINDOW_UPDATE read
        // here lets them go.
        if stream.relayMayHoldBack, !queue.isEmpty { pump() }
        flush()
    }

    public func streamDidDrain(_ stream: IOStream) {
        pump()
    }

    public func stream(_ stream: IOStream, didCloseWith error: IOError) {
        fail(error)
    }
}

extension HTTP2ClientConnection: HTTP2SessionDelegate {
    func sessionBeganHeaders(streamID: Int32) {}

    func sessionReceivedHeader(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        withOpenExchange(streamID) { exchange in
            if name.count == 7, name[0] == UInt8(ascii: ":"), Self.isStatus(name) {
                var status = 0
                for byte in value where byte >= 48 && byte <= 57 { status = status * 10 + Int(byte - 48) }
                exchange.status = status
            } else {
                exchange.receivedHeader(name: name, value: value)
            }
        }
    }

    func sessionReceivedData(streamID: Int32, data: UnsafeRawBufferPointer) {
        withOpenExchange(streamID) { $0.receivedData(data) }
    }

    func sessionEndedStream(streamID: Int32) {}

    func sessionClosedStream(streamID: Int32, errorCode: UInt32) {
        guard let exchange = openExchange(streamID) else { return }
        unlinkOpen(exchange)
        if errorCode == HTTP2ErrorCode.noError, exchange.status > 0 {
            exchange.finished(nil)
        } else if errorCode == HTTP2ErrorCode.refusedStream {
            exchange.finished(.notProcessed("stream refused by the server"))
        } else {
            exchange.finished(.outcomeUnknown("stream reset with HTTP/2 error \(errorCode)"))
        }
        afterStreamClosed()
    }

    /// Whether `name` is `:status` (byte by byte: a generic comparison with a string's UTF-8 view cost
    /// more than the rest of the header's handling).
    private static func isStatus(_ name: UnsafeRawBufferPointer) -> Bool {
        (":status" as StaticString).withUTF8Buffer { bytesEqual(UnsafeRawBufferPointer($0), name) }
    }

    /// The exchange open on `streamID` (nghttp2 keeps it as the stream's user data).
    private func openExchange(_ streamID: Int32) -> HTTP2ClientExchange? {
        guard let pointer = currentSession?.streamUserData(streamID) else { return nil }
        return Unmanaged<HTTP2ClientExchange>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Calls `body` with the exchange open on `streamID`, if any, without counting a reference for the
    /// call: the open list holds it until its stream closes, which cannot happen during a header or data
    /// callback.
    private func withOpenExchange(_ streamID: Int32, _ body: (HTTP2ClientExchange) -> Void) {
        guard let pointer = currentSession?.streamUserData(streamID) else { return }
        Unmanaged<HTTP2ClientExchange>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    func sessionReceivedGoAway(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
        goAwayReceived(lastStreamID: lastStreamID)
        delegate?.connection(self, didReceiveGoAway: lastStreamID, errorCode: errorCode, debugData: debugData)
    }

    func sessionReceivedSettings() {
        if state == .connecting {
            markReady()
        } else {
            pump()
            delegate?.connectionHasCapacity(self)
        }
    }

    func sessionReceivedPingAck() {
        clearPingDeadline()
    }
}
