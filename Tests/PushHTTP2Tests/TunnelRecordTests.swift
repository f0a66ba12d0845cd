import Testing

@testable import PushHTTP2

/// A session delegate that ignores everything (the tests look only at the bytes a session writes).
private final class QuietDelegate: HTTP2SessionDelegate {
    func sessionBeganHeaders(streamID: Int32) {}
    func sessionReceivedHeader(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {}
    func sessionReceivedData(streamID: Int32, data: UnsafeRawBufferPointer) {}
    func sessionEndedStream(streamID: Int32) {}
    func sessionClosedStream(streamID: Int32, errorCode: UInt32) {}
    func sessionReceivedGoAway(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {}
    func sessionReceivedSettings() {}
    func sessionReceivedPingAck() {}
}

/// One HTTP/2 frame as written: type, flags, stream, and which write it came in.
private struct WrittenFrame {
    let type: UInt8, flags: UInt8, stream: Int32, write: Int
}

/// Splits the writes (their concatenation being the client preface and then frames) into frames,
/// checking that no frame spans two writes.
private func frames(of writes: [[UInt8]]) -> [WrittenFrame] {
    var result: [WrittenFrame] = []
    for (index, bytes) in writes.enumerated() {
        var offset = index == 0 && bytes.starts(with: Array("PRI * HTTP/2.0".utf8)) ? 24 : 0
        while offset < bytes.count {
            #expect(bytes.count - offset >= 9, "a frame header spans two writes")
            guard bytes.count - offset >= 9 else { break }
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            let stream =
                Int32(bytes[offset + 5] & 0x7F) << 24 | Int32(bytes[offset + 6]) << 16
                | Int32(bytes[offset + 7]) << 8 | Int32(bytes[offset + 8])
            result.append(WrittenFrame(type: bytes[offset + 3], flags: bytes[offset + 4], stream: stream, write: index))
            offset += 9 + length
            #expect(offset <= bytes.count, "a frame spans two writes")
        }
    }
    return result
}

/// The server's SETTINGS (MAX_CONCURRENT_STREAMS = 1000) as a client session receives them.
private let serverSettings: [UInt8] = [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0x03, 0xE8]

@Suite("Tunnelled connections: TLS record boundaries follow requests")
struct TunnelRecordTests {
    /// A client session past its preface and the server's SETTINGS, with `count` requests submitted
    /// (`body` bytes each) and staged one by one as the connection's pump does; returns every write.
    private func writes(count: Int, body: Int, limit: Int, header: String = "x") throws -> (writes: [[UInt8]], exchanges: [HTTP2ClientExchange]) {
        let delegate = QuietDelegate()
        let session = try HTTP2Session(server: false, settings: [(3, 100)], delegate: delegate)
        var writes: [[UInt8]] = []
        try session.drainOutput(requestGroupsUpTo: limit) { writes.append(Array($0)) }
        try serverSettings.withUnsafeBytes { try session.receive($0) }
        var exchanges: [HTTP2ClientExchange] = []
        for index in 0..<count {
            let request = HTTP2Request(
                authority: "api.push.apple.com", path: "/3/device/\(index)",
                headers: [("apns-topic", "com.example.app"), ("x-value", header)],
                body: [UInt8](repeating: UInt8(index & 0x7F), count: body))
            let exchange = HTTP2ClientExchange(request: request)
            exchanges.append(exchange)  // kept alive while nghttp2 reads its body
            exchange.streamID = try session.submitRequest(exchange, unindexed: [])
            try session.stageOutput(requestGroupsUpTo: limit) { writes.append(Array($0)) }
        }
        try session.drainOutput(requestGroupsUpTo: limit) { writes.append(Array($0)) }
        withExtendedLifetime(delegate) {}
        return (writes, exchanges)
    }

    @Test("each write ends where a request ends, holds whole requests only, at most the limit unless one request is larger")
    func writesFollowRequests() throws {
        let limit = 1536
        // (Within the connection's 64 KB window: past it nghttp2 holds DATA back, which the connection
        // avoids by holding the request back, see HTTP2ClientConnection.pump().)
        for (count, body, header) in [(200, 256, "x"), (12, 4096, "x"), (30, 100, String(repeating: "h", count: 3000))] {
            let (writes, exchanges) = try writes(count: count, body: body, limit: limit, header: header)
            let all = frames(of: writes)
            // Each request's HEADERS and DATA frames went out in one write.
            var writeOfStream: [Int32: Int] = [:]
            for frame in all where frame.stream != 0 {
                if let write = writeOfStream[frame.stream] {
                    #expect(write == frame.write, "stream \(frame.stream) spans writes \(write) and \(frame.write)")
                } else {
                    writeOfStream[frame.stream] = frame.write
                }
            }
            #expect(writeOfStream.count == count)
            // Every write holding a request ends with the frame that ends one (END_STREAM) and, when it
            // holds more than one request, is within the limit.
            for index in writes.indices {
                let mine = all.filter { $0.write == index }
                let streams = Set(mine.map(\.stream).filter { $0 != 0 })
                guard let last = mine.last, !streams.isEmpty else { continue }
                #expect(last.stream != 0 && last.flags & 0x1 != 0, "write \(index) ends inside a request")
                if streams.count > 1 { #expect(writes[index].count <= limit, "write \(index): \(writes[index].count) bytes") }
            }
            withExtendedLifetime(exchanges) {}
        }
    }
}
