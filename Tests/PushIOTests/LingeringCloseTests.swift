import Foundation
import PushTLS
import TestSupport
import Testing

@testable import PushIO

/// A close right after writes that went straight to the kernel, while the peer's own bytes wait unread:
/// freeing the socket then makes the kernel reset the connection and drop what it has not sent yet, so
/// the stream shuts its write side and drains the peer until it closes too.
@Suite("Close while the peer's bytes wait unread")
struct LingeringCloseTests {
    @Test("every byte written before close() arrives although the peer keeps sending", arguments: [false, true])
    func lastBytesSurviveUnreadInput(tls: Bool) async throws {
        let loop = EventLoop(name: "lingering-close")
        defer { loop.shutdown() }
        let (serverTLS, clientTLS) = tls ? try PeerCloseTests.contexts() : (nil, nil)
        let last = [UInt8]((0..<1024 * 1024).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let serverSide = RecordingDelegate()
        let listener = try await loop.submit {
            try IOListener(loop: loop, host: "127.0.0.1", port: 0, tls: serverTLS) { stream in
                stream.delegate = serverSide
                serverSide.onRead = { _ in
                    // The first bytes are in: answer in 16 KB writes and close, reading nothing more.
                    guard stream.isOpen else { return }
                    var offset = 0
                    while offset < last.count {
                        stream.write(Array(last[offset..<min(offset + 16384, last.count)]))
                        offset += 16384
                    }
                    stream.close()
                }
            }
        }
        let port = try await loop.submit { listener.port }
        let clientSide = RecordingDelegate()
        let junk = [UInt8](repeating: 7, count: 64 * 1024)
        let (received, error): ([UInt8], IOError) = try await awaitEvent("the client side to see the lingering close") {
            try await withCheckedThrowingContinuation { continuation in
                loop.execute {
                    do {
                        let stream = try IOStream.connect(
                            on: loop, host: "127.0.0.1", port: port, tls: clientTLS, serverName: "localhost",
                            delegate: clientSide)
                        // Far more than the server reads before it closes: some is unread when it does.
                        clientSide.onConnect = { for _ in 0..<64 { stream.write(junk) } }
                        clientSide.onClose = { continuation.resume(returning: (clientSide.received, $0)) }
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
        #expect(received.count == last.count, "\(received.count) of \(last.count) bytes before: \(error)")
        #expect(received.elementsEqual(last), "the bytes arrive as written")
        try await loop.submit { listener.close() }
    }
}
