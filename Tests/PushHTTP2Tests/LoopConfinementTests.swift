import PushHTTP2
import PushIO
import Testing

@Suite("HTTP/2 connections check their loop")
struct LoopConfinementTests {
    @Test("a client connection asked for its state off its loop stops the process")
    func clientOffLoopTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = EventLoop(name: "h2-client-off-loop")
            let connection = HTTP2ClientConnection(
                loop: loop, configuration: HTTP2ClientConnection.Configuration(host: "127.0.0.1", port: 9, tls: nil))
            _ = connection.state
        }
    }

    @Test("a client connection that has not connected yet, asked to ping off its loop, stops the process")
    func idleClientPingOffLoopTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = EventLoop(name: "h2-client-ping-off-loop")
            let connection = HTTP2ClientConnection(
                loop: loop, configuration: HTTP2ClientConnection.Configuration(host: "127.0.0.1", port: 9, tls: nil))
            connection.ping()
        }
    }

    @Test("the same connection asked on its loop answers")
    func clientOnLoop() async throws {
        let loop = EventLoop(name: "h2-client-on-loop")
        defer { loop.shutdown() }
        let connection = HTTP2ClientConnection(
            loop: loop, configuration: HTTP2ClientConnection.Configuration(host: "127.0.0.1", port: 9, tls: nil))
        let state = try await loop.submit { connection.state }
        #expect(state == .idle)
    }
}
