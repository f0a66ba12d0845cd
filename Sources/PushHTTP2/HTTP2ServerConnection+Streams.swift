internal import CNGHTTP2
public import PushIO

extension HTTP2ServerConnection: IOStreamDelegate {
    public func streamDidConnect(_ stream: IOStream) {
        do {
            capture = served?.requestFields.map(FieldCapture.init(names:))
            session = try HTTP2Session(server: true, settings: settings, delegate: self)
            flush()
        } catch {
            abort()
        }
    }

    public func stream(_ stream: IOStream, didRead bytes: UnsafeRawBufferPointer) {
        guard let session else { return }
        readStarted = ContinuousClock.now
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
        guard let session else { return }
        let slot = incoming.take(streamID: streamID, capture: capture)
        session.setStreamUserData(streamID, UnsafeMutableRawPointer(bitPattern: slot + 1))
        streamsOpen += 1
        mostStreamsOpen = max(mostStreamsOpen, streamsOpen)
    }

    func sessionReceivedHeader(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard let slot = slot(streamID) else { return }
        if let capture {
            if let index = capture.index(of: name) { capture.capture(slot: slot, index: index, value) }
            return
        }
        incoming.records[slot].addHeader(name: name, value: value)
    }

    func sessionReceivedData(streamID: Int32, data: UnsafeRawBufferPointer) {
        // Captured fields only: the body is not kept, and not even looked up.
        guard capture == nil, let slot = slot(streamID) else { return }
        incoming.records[slot].request.body.append(contentsOf: data)
    }

    func sessionEndedStream(streamID: Int32) {
        guard let session, let slot = slot(streamID) else { return }
        // The record goes back to the pool now: the stream (still open until its answer) no longer points at it.
        session.setStreamUserData(streamID, nil)
        defer { incoming.give(slot) }
        guard streamID <= goAwayLastStreamID else { return }
        requestsReceived += 1
        if capture != nil {
            let fields = HTTP2ServerRequestFields(streamID: streamID, capture: capture!, slot: slot)
            served?.connection(self, didReceiveFields: fields)
        } else {
            let request = incoming.records[slot].request
            incoming.records[slot].request = HTTP2ServerRequest(streamID: 0)
            served?.connection(self, didReceive: request)
        }
    }

    func sessionClosedStream(streamID: Int32, errorCode: UInt32) {
        if let slot = slot(streamID) { incoming.give(slot) }  // closed before its request ended
        streamsOpen = max(0, streamsOpen - 1)
        closeIfDone()
    }

    func sessionReceivedGoAway(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {}
    func sessionReceivedSettings() {}
    func sessionReceivedPingAck() {}

    /// The pool slot of the request still being received on `streamID` (its stream user data is the
    /// slot plus one, so that slot 0 is not a null pointer).
    private func slot(_ streamID: Int32) -> Int? {
        guard let pointer = session?.streamUserData(streamID) else { return nil }
        return Int(bitPattern: pointer) - 1
    }
}

/// A whole request being received. Loop thread only.
struct IncomingStream {
    var request = HTTP2ServerRequest(streamID: 0)

    mutating func addHeader(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let text = String(decoding: value, as: UTF8.self)
        if name.first == UInt8(ascii: ":") {
            switch String(decoding: name, as: UTF8.self) {
            case ":method": request.method = text
            case ":path": request.path = text
            case ":scheme": request.scheme = text
            case ":authority": request.authority = text
            default: break
            }
        } else {
            if request.headers.isEmpty { request.headers.reserveCapacity(8) }
            request.headers.append((String(decoding: name, as: UTF8.self), text))
        }
    }
}

/// The records of one connection's requests being received, in slots used again once their request
/// ended (so a connection keeps at most one per concurrent stream, and allocates nothing per request for
/// captured fields). nghttp2's stream user data holds a stream's slot number.
struct StreamRecordPool {
    var records: [IncomingStream] = []
    private var free: [Int] = []

    /// A clean slot for a new request on `streamID`.
    mutating func take(streamID: Int32, capture: FieldCapture?) -> Int {
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
        } else {
            slot = records.count
            records.append(IncomingStream())
        }
        if let capture {
            capture.reset(slot: slot)
        } else {
            records[slot].request = HTTP2ServerRequest(streamID: streamID)
        }
        return slot
    }

    mutating func give(_ slot: Int) {
        free.append(slot)
    }
}
