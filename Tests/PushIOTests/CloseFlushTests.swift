import Foundation
import TestSupport
import Testing

@testable import PushIO

/// A close right after the last writes must send them all before the FIN, even when a write callback from
/// an earlier drain is still due: libevent's TLS layer defers that callback, so it can run after the
/// last writes and the close, while those bytes still wait in the output buffer.
@Suite("Close after the last writes")
struct CloseFlushTests {
    @Test("bytes written just before close() all arrive, even when a stale drain callback runs after the close", arguments: [false, true])
    func staleDrainCallbackKeepsTheLastBytes(tls: Bool) async throws {
        let loop = EventLoop(name: "close-flush")
        defer { loop.shutdown() }
        let (serverTLS, clientTLS) = tls ? try PeerCloseTests.contexts() : (nil, nil)
        let last = [UInt8]((0..<512 * 1024).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let serverSide = RecordingDelegate()
        let listener = try await loop.submit {
            try IOListener(loop: loop, host: "127.0.0.1", port: 0, tls: serverTLS) { stream in
                stream.delegate = serverSide
                serverSide.onRead = { bytes in
                    guard bytes.count >= 5, stream.isOpen else { return }
                    stream.write(last)
                    stream.close()
                    // What the deferred callback of an earlier drain does when it runs now: the bytes
                    // above are still queued, so the stream must stay open until they are out.
                    stream.outputDrained()
                }
            }
        }
        let port = try await loop.submit { listener.port }
        let clientSide = RecordingDelegate()
        let received: [UInt8] = try await awaitEvent("the bytes written before close to arrive") {
            try await withCheckedThrowingContinuation { continuation in
                loop.execute {
                    do {
                        let stream = try IOStream.connect(
                            on: loop, host: "127.0.0.1", port: port, tls: clientTLS, serverName: "localhost",
                            delegate: clientSide)
                        clientSide.onConnect = { stream.write(Array("hello".utf8)) }
                        clientSide.onClose = { _ in continuation.resume(returning: clientSide.received) }
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
        #expect(received.count == last.count, "\(received.count) of \(last.count) bytes arrived before the close")
        #expect(received.elementsEqual(last), "the bytes arrive as written")
        try await loop.submit { listener.close() }
    }
}
