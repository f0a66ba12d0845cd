import Foundation
import PushIO
import PushTLS
import PushTLSTesting
import TestSupport
import Testing

/// A peer that writes its last bytes and closes at once, without reading what we keep sending: its
/// kernel resets the connection, our next write fails, and the bytes it sent before must still arrive.
@Suite("Peer closes right after its last bytes")
struct PeerCloseTests {
    @Test("every byte the peer wrote before its close or reset is read before the close is reported", arguments: [false, true])
    func lastBytesArriveBeforeTheClose(tls: Bool) async throws {
        let loop = EventLoop(name: "peer-close")
        defer { loop.shutdown() }
        let (serverTLS, clientTLS) = tls ? try Self.contexts() : (nil, nil)
        let last = [UInt8]((0..<48 * 1024).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let serverSide = RecordingDelegate()
        let listener = try await loop.submit {
            try IOListener(loop: loop, host: "127.0.0.1", port: 0, tls: serverTLS) { stream in
                stream.delegate = serverSide
                serverSide.onRead = { bytes in
                    // The request is in: answer in many small writes, then close without reading more.
                    guard bytes.count >= 5, stream.isOpen else { return }
                    var offset = 0
                    while offset < last.count {
                        stream.write(Array(last[offset..<min(offset + 512, last.count)]))
                        offset += 512
                    }
                    stream.close()
                }
            }
        }
        let port = try await loop.submit { listener.port }
        let clientSide = RecordingDelegate()
        let (received, error): ([UInt8], IOError) = try await awaitEvent("the client side to see the peer's close") {
            try await withCheckedThrowingContinuation { continuation in
                loop.execute {
                    do {
                        let stream = try IOStream.connect(
                            on: loop, host: "127.0.0.1", port: port, tls: clientTLS, serverName: "localhost",
                            delegate: clientSide)
                        clientSide.onConnect = { stream.write(Array("hello".utf8)) }
                        // Like HTTP/2 WINDOW_UPDATEs: every read is answered with a few bytes the peer never reads.
                        clientSide.onRead = { _ in stream.write([UInt8](repeating: 0, count: 13)) }
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

    static func contexts() throws -> (TLSContext, TLSContext) {
        let authority = try TestCertificateAuthority()
        let server = try TLSContext.server(TLSServerConfiguration(identity: try authority.issueServerCertificate().identity()))
        var client = TLSClientConfiguration()
        client.trust = .caPEM(authority.certificatePEM)
        return (server, try TLSContext.client(client))
    }
}
